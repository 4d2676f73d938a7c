// A slice and a pad of a dimension split over 4 devices (uneven shards).
spmd.mesh @mesh = <["x"=4]>
func.func @rows(%a: tensor<15x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<11x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = tensor.extract_slice %a[3, 0] [11, 8] [1, 1] : tensor<15x8xf32> to tensor<11x8xf32>
  return %0 : tensor<11x8xf32>
}
func.func @pad_rows(%a: tensor<14x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<17x9xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %c = arith.constant 0.5 : f32
  %0 = tensor.pad %a low[1, 0] high[2, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<14x8xf32> to tensor<17x9xf32>
  return %0 : tensor<17x9xf32>
}
