// An op the runtime has no kernel for: an error at the op, once.
func.func @main(%a: tensor<4xf32>) -> tensor<4xi32> {
  %0 = tensor.bitcast %a : tensor<4xf32> to tensor<4xi32>
  return %0 : tensor<4xi32>
}
