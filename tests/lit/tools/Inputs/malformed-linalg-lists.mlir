// linalg.transpose with a malformed permutation list: MLIR 22's own parser
// dereferences a null attribute on it (mlir-opt crashes).
func.func @f(%t: tensor<3x4xf32>, %u: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %c = linalg.transpose ins(%t : tensor<3x4xf32>) outs(%u : tensor<4x3xf32>) permutation =  = [1, 0]
  return %c : tensor<4x3xf32>
}
