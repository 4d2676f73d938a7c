// An iterator_types entry that is not a string (a type): MLIR 22's parser
// of linalg.generic read it as a string and aborted out of memory.
func.func @f(%a: tensor<4x3xf32>, %i: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", tensor<f32>]}
      ins(%a : tensor<4x3xf32>) outs(%i : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
