// A tensor of 40 GB.
func.func @f(%a: tensor<100000x100000xf32>) -> tensor<100000x100000xf32> {
  %e = math.exp %a : tensor<100000x100000xf32>
  return %e : tensor<100000x100000xf32>
}
