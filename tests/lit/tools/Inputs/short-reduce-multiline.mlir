// The short form over several lines, and a valid list: runs.
func.func @f(%e: tensor<8x4xf32>) -> tensor<4xf32> {
  %z = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%i : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.reduce { arith.addf }
         ins(%e : tensor<8x4xf32>)
         outs(%f : tensor<4xf32>)
         dimensions = [0]
  %t = linalg.reduce { arith.maximumf }
         ins(%e : tensor<8x4xf32>)
         outs(%f : tensor<4xf32>)
         dimensions = [0 1
  return %s : tensor<4xf32>
}
