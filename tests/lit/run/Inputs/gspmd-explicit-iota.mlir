// One device order, 0,4,1,5,2,6,3,7, written as an explicit list for %a and
// as <=[2,4]T(1,0) for %b: both operands of the matmul on one mesh.
func.func @main(%a: tensor<4x8xf32> {mhlo.sharding = "{devices=[2,1,4]0,4,1,5,2,6,3,7 last_tile_dim_replicate}"},
                %b: tensor<8x4xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}) -> tensor<4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
