spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %n = linalg.negf ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = spmd.sharding_constraint %n <@mesh, [{}, {}], partial={"x"}> : tensor<4x4xf32>
  %m = linalg.negf ins(%c : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}
