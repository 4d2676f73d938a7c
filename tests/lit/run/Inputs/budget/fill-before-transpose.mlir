// A fill written before a transpose whose input dies there: the executor
// made it where it stood, beside that input, though the model holds it from
// its reader (the matmul after the transpose).
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @f(%x: tensor<64x256xf32>, %w: tensor<256x128xf32>) -> (tensor<64x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"data", "model"}]>}, tensor<64x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], partial={"data", "model"}>}) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x256xf32>, tensor<256x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %t = math.tanh %m : tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %f2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %et = tensor.empty() : tensor<128x64xf32>
  %wt = linalg.transpose ins(%m : tensor<64x128xf32>) outs(%et : tensor<128x64xf32>) permutation = [1, 0]
  %g = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} ins(%t, %wt : tensor<64x128xf32>, tensor<128x64xf32>) outs(%f2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %g, %m : tensor<64x64xf32>, tensor<64x128xf32>
}
