// Generics that leave some elements of their init unwritten, with bodies
// that never read it: those elements keep the init's values. Each entry
// has a twin (_ref) that returns the values the op must give.
#id = affine_map<(i) -> (i)>
#first = affine_map<(i) -> (0)>

// Every step writes element 0 (the last step's value stays); 1..3 are the
// init's.
func.func @not_onto(%init: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#id, #first], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @not_onto_ref(%init: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %c3 = arith.constant 3 : index
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c3] : tensor<4xf32>
  %s = arith.mulf %v, %v : f32
  %r = tensor.insert %s into %init[%c0] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// A reduction of no steps: the result is the init.
func.func @no_steps(%init: tensor<4xf32>, %z: tensor<4x0xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%z : tensor<4x0xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @no_steps_ref(%init: tensor<4xf32>, %z: tensor<4x0xf32>) -> tensor<4xf32> {
  return %init : tensor<4xf32>
}
