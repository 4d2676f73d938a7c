// A global whose value is not of its type: the verifiers accept it.
ml_program.global private @g(dense<5> : tensor<2x3xi32>) : tensor<2x3xf32>
func.func @main() -> tensor<2x3xf32> {
  %w = ml_program.global_load_const @g : tensor<2x3xf32>
  return %w : tensor<2x3xf32>
}
