// linalg.reduce in its short form ({ arith.addf } before the operands) with
// a malformed dimensions list after them: MLIR 22's parser crashes.
func.func @f(%e: tensor<8xf32>, %f: tensor<f32>) -> tensor<f32> {
  %s = linalg.reduce { arith.addf } ins(%e : tensor<8xf32>) outs(%f : tensor<f32>) dimensions = {[0]
  return %s : tensor<f32>
}
