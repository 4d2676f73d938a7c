// Element types holding an `x` (index) after the sizes: the guard reads
// the sizes only.
func.func @main(%a: index, %b: index, %c: index, %d: index) -> tensor<2x2xindex> {
  %t = tensor.from_elements %a, %b, %c, %d : tensor<2x2xindex>
  return %t : tensor<2x2xindex>
}
