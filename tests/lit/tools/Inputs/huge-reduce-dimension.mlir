// linalg.reduce with a dimension past 64 bits (MLIR 22's parser gave a
// null attribute and crashed).
func.func @f(%x: tensor<2x6xf32>, %f: tensor<2xf32>) -> tensor<2xf32> {
  %z = linalg.reduce ins(%x : tensor<2x6xf32>) outs(%f : tensor<2xf32>) dimensions = [99999999999999999999]
    (%a: f32, %o: f32) {
      %p = arith.mulf %a, %o : f32
      linalg.yield %p : f32
    }
  return %z : tensor<2xf32>
}
