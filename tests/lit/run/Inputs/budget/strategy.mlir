// Two matmuls whose second is computed otherwise than auto-sharding modelled.
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @main(%x: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}, %w0: tensor<64x64xf32>, %w1: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<16x64xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %h0 = linalg.matmul ins(%x, %w0 : tensor<16x64xf32>, tensor<64x64xf32>) outs(%f0 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e1 = tensor.empty() : tensor<16x32xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %h1 = linalg.matmul ins(%h0, %w1 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %h1 : tensor<16x32xf32>
}
