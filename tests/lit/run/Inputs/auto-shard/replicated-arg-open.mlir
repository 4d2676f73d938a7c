spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%a: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {?}], replicated={"y"}>}) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %n = linalg.exp ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %n : tensor<4x4xf32>
}
