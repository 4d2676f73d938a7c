// Rows 10..13 of the second shard, the result split again over model: one
// reduce_scatter of the block.
spmd.mesh @mesh = <["model"=4]>
func.func @mid_rows(%cache: tensor<32x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<4x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) {
  %s = tensor.extract_slice %cache[10, 0] [4, 16] [1, 1] : tensor<32x16xf32> to tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}
