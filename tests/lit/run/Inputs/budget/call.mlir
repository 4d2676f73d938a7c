// A layer called twice with the caller's weights.
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func private @layer(%x: tensor<16x128xf32>, %w1: tensor<128x512xf32>, %w2: tensor<512x128xf32>) -> tensor<16x128xf32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16x512xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<16x512xf32>) -> tensor<16x512xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<16x128xf32>, tensor<128x512xf32>) outs(%f1 : tensor<16x512xf32>) -> tensor<16x512xf32>
  %e2 = tensor.empty() : tensor<16x128xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<16x128xf32>) -> tensor<16x128xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<16x512xf32>, tensor<512x128xf32>) outs(%f2 : tensor<16x128xf32>) -> tensor<16x128xf32>
  return %y : tensor<16x128xf32>
}
func.func @main(%x: tensor<16x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                %w1: tensor<128x512xf32>, %w2: tensor<512x128xf32>) -> tensor<16x128xf32> {
  %y1 = func.call @layer(%x, %w1, %w2) : (tensor<16x128xf32>, tensor<128x512xf32>, tensor<512x128xf32>) -> tensor<16x128xf32>
  %y2 = func.call @layer(%y1, %w1, %w2) : (tensor<16x128xf32>, tensor<128x512xf32>, tensor<512x128xf32>) -> tensor<16x128xf32>
  return %y2 : tensor<16x128xf32>
}
