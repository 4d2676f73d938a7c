// The first four rows of a cache split in shards of eight: only that block
// moves, not every shard.
spmd.mesh @mesh = <["model"=4]>
func.func @head_rows(%cache: tensor<32x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<4x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %s = tensor.extract_slice %cache[0, 0] [4, 16] [1, 1] : tensor<32x16xf32> to tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}
