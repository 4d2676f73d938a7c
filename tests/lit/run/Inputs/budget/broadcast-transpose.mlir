// A broadcast whose input is also transposed, (i, b, j) -> (j, i).
spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%a: tensor<256x128xf32>) -> tensor<128x8x256xf32> {
  %e = tensor.empty() : tensor<128x8x256xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(i, b, j) -> (j, i)>, affine_map<(i, b, j) -> (i, b, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<256x128xf32>) outs(%e : tensor<128x8x256xf32>) {
  ^bb0(%p: f32, %o: f32):
    linalg.yield %p : f32
  } -> tensor<128x8x256xf32>
  return %c : tensor<128x8x256xf32>
}
