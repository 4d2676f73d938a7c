// A matmul whose operands carry GSPMD sharding strings.
func.func @main(%a: tensor<8x6xf32> {mhlo.sharding = "{devices=[2,1]0,1}"}, %b: tensor<6x4xf32> {mhlo.sharding = "{replicated}"}) -> tensor<8x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x6xf32>, tensor<6x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
