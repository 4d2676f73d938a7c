spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<2x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<32xf32> {
  %e = tensor.empty() : tensor<2x16xf32>
  %t = linalg.exp ins(%a : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  %c = tensor.collapse_shape %t [[0, 1]] : tensor<2x16xf32> into tensor<32xf32>
  return %c : tensor<32xf32>
}
