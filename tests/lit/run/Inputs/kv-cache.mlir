// KV-cache updates: new rows written at a position into a cache split on
// the sequence dimension. Positions are dynamic (an offset added to an
// argument) and land in other shards, across shard edges and in uneven
// shards.
spmd.mesh @mesh = <["data"=2, "model"=4]>

// One [1, heads, dim] row at %p + 37 (the third shard of 16 rows).
func.func @one_row(%cache: tensor<64x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}, {}]>},
                   %new: tensor<1x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {}]>},
                   %p: index)
    -> (tensor<64x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}, {}]>}) {
  %c37 = arith.constant 37 : index
  %pos = arith.addi %p, %c37 : index
  %r = tensor.insert_slice %new into %cache[%pos, 0, 0] [1, 8, 16] [1, 1, 1] : tensor<1x8x16xf32> into tensor<64x8x16xf32>
  return %r : tensor<64x8x16xf32>
}

// Three rows at %p + 14 over uneven shards (30 rows over 4: 8, 8, 8, 6):
// the block straddles the edge of the first two shards.
func.func @block_across_shards(%cache: tensor<30x4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}, {}]>},
                               %new: tensor<3x4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {}]>},
                               %p: index)
    -> (tensor<30x4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}, {}]>}) {
  %c6 = arith.constant 6 : index
  %pos = arith.addi %p, %c6 : index
  %r = tensor.insert_slice %new into %cache[%pos, 0, 0] [3, 4, 8] [1, 1, 1] : tensor<3x4x8xf32> into tensor<30x4x8xf32>
  return %r : tensor<30x4x8xf32>
}

// Batch over data, sequence over model; the new entries [batch, 1, dim]
// split on the batch like the cache.
func.func @batched(%cache: tensor<4x32x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}, {}]>},
                   %new: tensor<4x1x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}, {}]>},
                   %p: index)
    -> (tensor<4x32x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}, {}]>}) {
  %c23 = arith.constant 23 : index
  %pos = arith.addi %p, %c23 : index
  %r = tensor.insert_slice %new into %cache[0, %pos, 0] [4, 1, 8] [1, 1, 1] : tensor<4x1x8xf32> into tensor<4x32x8xf32>
  return %r : tensor<4x32x8xf32>
}

// A rank-reducing insert of a vector at a static row of the last shard.
func.func @rank_reduced(%cache: tensor<10x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {"data"}]>},
                        %new: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}]>})
    -> (tensor<10x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {"data"}]>}) {
  %r = tensor.insert_slice %new into %cache[9, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<10x8xf32>
  return %r : tensor<10x8xf32>
}
