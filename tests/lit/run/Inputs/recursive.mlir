// A function calling itself through another: devices run on stacks of a
// fixed size, so this is refused when compiled (it overflowed the stack).
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
