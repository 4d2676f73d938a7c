// Two functions, each needing its own smallest budget (auto-shard/errors.test).
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func private @layer(%x: tensor<16x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16x64xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<16x32xf32>, tensor<32x64xf32>) outs(%f1 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e2 = tensor.empty() : tensor<16x32xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %b = linalg.matmul ins(%a, %w2 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %b : tensor<16x32xf32>
}
func.func @main(%x: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                %w1: tensor<32x64xf32>, %w2: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %y1 = func.call @layer(%x, %w1, %w2) : (tensor<16x32xf32>, tensor<32x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %y2 = func.call @layer(%y1, %w1, %w2) : (tensor<16x32xf32>, tensor<32x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  return %y2 : tensor<16x32xf32>
}
