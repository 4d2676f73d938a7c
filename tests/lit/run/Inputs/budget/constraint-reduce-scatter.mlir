// A sharding_constraint that reduce-scatters a pending matmul result: the
// reshard's pieces are held beside the input and the result.
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @f(%x: tensor<64x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"data", "model"}]>},
             %w: tensor<256x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", "model"}, {}]>})
    -> (tensor<64x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"data", "model"}]>}) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<64x512xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %2 = linalg.matmul ins(%x, %w : tensor<64x256xf32>, tensor<256x512xf32>) outs(%1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %3 = spmd.sharding_constraint %2 <@mesh, [{}, {"data", "model"}]> : tensor<64x512xf32>
  %4 = math.tanh %3 : tensor<64x512xf32>
  return %4 : tensor<64x512xf32>
}
