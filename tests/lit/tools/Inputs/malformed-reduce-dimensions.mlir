// linalg.reduce with a cut dimensions list (MLIR 22's parser crashes).
func.func @f(%x: tensor<2x6xf32>, %f: tensor<2xf32>) -> tensor<2xf32> {
  %z = linalg.reduce ins(%x : tensor<2x6xf32>) outs(%f : tensor<2xf32>) dimensions = [1
    (%a: f32, %o: f32) {
      %p = arith.mulf %a, %o : f32
      linalg.yield %p : f32
    }
  return %z : tensor<2xf32>
}
