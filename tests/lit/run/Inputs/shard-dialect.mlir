// An elementwise op on a 2x2 grid, annotated with the upstream shard dialect.
shard.grid @grid(shape = 2x2)
func.func @main(%a: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %as = shard.shard %a to %s : tensor<8x6xf32>
  %e = math.exp %as : tensor<8x6xf32>
  %r = shard.shard %e to %s annotate_for_users : tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}
