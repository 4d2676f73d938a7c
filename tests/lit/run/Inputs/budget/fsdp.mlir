// FSDP forward: the weight is chosen.
spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @fsdp(%x: tensor<8192x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                %w: tensor<1024x1024xf32>) -> tensor<8192x1024xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8192x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8192x1024xf32>) -> tensor<8192x1024xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8192x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<8192x1024xf32>) -> tensor<8192x1024xf32>
  return %y : tensor<8192x1024xf32>
}
