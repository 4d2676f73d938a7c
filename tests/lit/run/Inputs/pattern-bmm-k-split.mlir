// batch_matmul with the contraction dimension split on both operands and
// the result split on M (uneven: 7 rows over 4): local partial products,
// then one reduce_scatter of the 560-byte partial.
spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @bmm(%a: tensor<2x7x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"model"}]>},
               %b: tensor<2x8x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}, {}]>})
    -> (tensor<2x7x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x7x10xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x7x10xf32>) -> tensor<2x7x10xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x7x8xf32>, tensor<2x8x10xf32>) outs(%f : tensor<2x7x10xf32>) -> tensor<2x7x10xf32>
  return %r : tensor<2x7x10xf32>
}
