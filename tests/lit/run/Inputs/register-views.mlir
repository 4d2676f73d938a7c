// The evaluator reads contiguous f32 operands in place: a register views the
// tensor instead of holding a copy. Each function has a twin that computes
// the same without such views.

#id = affine_map<(i) -> (i)>
#rows = affine_map<(i, j) -> (i, j)>
#shifted = affine_map<(i, j) -> (i + j)>
#col = affine_map<(i, j) -> (j)>
#none = affine_map<(i, j) -> ()>

// A body of four viewed inputs, then one whose computed values take the
// registers that held those views: they must hold what is computed, not
// what was viewed.
func.func @after_views(%a: tensor<1000xf32>, %b: tensor<1000xf32>, %c: tensor<1000xf32>, %d: tensor<1000xf32>, %x: tensor<1000xf32>) -> (tensor<1000xf32>, tensor<1000xf32>) {
  %e = tensor.empty() : tensor<1000xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b, %c, %d : tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>) outs(%e : tensor<1000xf32>) {
  ^bb0(%p: f32, %q: f32, %r: f32, %t: f32, %o: f32):
    %pq = arith.mulf %p, %q : f32
    %rt = arith.mulf %r, %t : f32
    %y = arith.addf %pq, %rt : f32
    linalg.yield %y : f32
  } -> tensor<1000xf32>
  %t = call @chain(%x) : (tensor<1000xf32>) -> tensor<1000xf32>
  return %s, %t : tensor<1000xf32>, tensor<1000xf32>
}

func.func @after_views_ref(%a: tensor<1000xf32>, %b: tensor<1000xf32>, %c: tensor<1000xf32>, %d: tensor<1000xf32>, %x: tensor<1000xf32>) -> (tensor<1000xf32>, tensor<1000xf32>) {
  %t = call @chain(%x) : (tensor<1000xf32>) -> tensor<1000xf32>
  %e = tensor.empty() : tensor<1000xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b, %c, %d : tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>) outs(%e : tensor<1000xf32>) {
  ^bb0(%p: f32, %q: f32, %r: f32, %t2: f32, %o: f32):
    %pq = arith.mulf %p, %q : f32
    %rt = arith.mulf %r, %t2 : f32
    %y = arith.addf %pq, %rt : f32
    linalg.yield %y : f32
  } -> tensor<1000xf32>
  return %s, %t : tensor<1000xf32>, tensor<1000xf32>
}

func.func private @chain(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1000xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1000xf32>) outs(%e : tensor<1000xf32>) {
  ^bb0(%v: f32, %o: f32):
    %sq = arith.mulf %v, %v : f32
    %a1 = arith.addf %sq, %v : f32
    %a2 = arith.subf %a1, %one : f32
    %a3 = arith.mulf %a2, %v : f32
    linalg.yield %a3 : f32
  } -> tensor<1000xf32>
  return %t : tensor<1000xf32>
}

// A sliding window (row i reads x[i + j]) views x at offsets that are not
// a vector's alignment, through a vectorised math function, and yields the
// viewed values themselves, into outputs large enough to be written with
// streaming stores (8 MiB).
func.func @unaligned(%x: tensor<262151xf32>, %b: tensor<262144xf32>) -> (tensor<8x262144xf32>, tensor<8x262144xf32>) {
  %e = tensor.empty() : tensor<8x262144xf32>
  %y:2 = linalg.generic {indexing_maps = [#shifted, #col, #rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<262151xf32>, tensor<262144xf32>) outs(%e, %e : tensor<8x262144xf32>, tensor<8x262144xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32, %o2: f32):
    %th = math.tanh %v : f32
    %s = arith.addf %th, %w : f32
    linalg.yield %s, %v : f32, f32
  } -> (tensor<8x262144xf32>, tensor<8x262144xf32>)
  return %y#0, %y#1 : tensor<8x262144xf32>, tensor<8x262144xf32>
}

// The same through tensor.extract, which reads one element a lane.
func.func @unaligned_ref(%x: tensor<262151xf32>, %b: tensor<262144xf32>) -> (tensor<8x262144xf32>, tensor<8x262144xf32>) {
  %e = tensor.empty() : tensor<8x262144xf32>
  %y:2 = linalg.generic {indexing_maps = [#col, #rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<262144xf32>) outs(%e, %e : tensor<8x262144xf32>, tensor<8x262144xf32>) {
  ^bb0(%w: f32, %o: f32, %o2: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %p = arith.addi %i, %j : index
    %v = tensor.extract %x[%p] : tensor<262151xf32>
    %th = math.tanh %v : f32
    %s = arith.addf %th, %w : f32
    linalg.yield %s, %v : f32, f32
  } -> (tensor<8x262144xf32>, tensor<8x262144xf32>)
  return %y#0, %y#1 : tensor<8x262144xf32>, tensor<8x262144xf32>
}

// Two outputs, the second yielding the first's init: the block's first
// output is stored over that init (its own buffer, the init dying here)
// before the second is, so the init must not be read in place.
func.func @init_yielded(%a: tensor<300xf32>, %x: tensor<300xf32>) -> (tensor<300xf32>, tensor<300xf32>) {
  %e = tensor.empty() : tensor<300xf32>
  %acc = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<300xf32>) outs(%e : tensor<300xf32>) {
  ^bb0(%p: f32, %o: f32):
    %q = arith.mulf %p, %p : f32
    linalg.yield %q : f32
  } -> tensor<300xf32>
  %e2 = tensor.empty() : tensor<300xf32>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<300xf32>) outs(%acc, %e2 : tensor<300xf32>, tensor<300xf32>) {
  ^bb0(%y: f32, %o0: f32, %o1: f32):
    %n = arith.addf %y, %o0 : f32
    linalg.yield %n, %o0 : f32, f32
  } -> (tensor<300xf32>, tensor<300xf32>)
  return %r#0, %r#1 : tensor<300xf32>, tensor<300xf32>
}

// The same with the outputs' order swapped: the init is stored last.
func.func @init_yielded_ref(%a: tensor<300xf32>, %x: tensor<300xf32>) -> (tensor<300xf32>, tensor<300xf32>) {
  %e = tensor.empty() : tensor<300xf32>
  %acc = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<300xf32>) outs(%e : tensor<300xf32>) {
  ^bb0(%p: f32, %o: f32):
    %q = arith.mulf %p, %p : f32
    linalg.yield %q : f32
  } -> tensor<300xf32>
  %e2 = tensor.empty() : tensor<300xf32>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<300xf32>) outs(%e2, %acc : tensor<300xf32>, tensor<300xf32>) {
  ^bb0(%y: f32, %o1: f32, %o0: f32):
    %n = arith.addf %y, %o0 : f32
    linalg.yield %o0, %n : f32, f32
  } -> (tensor<300xf32>, tensor<300xf32>)
  return %r#1, %r#0 : tensor<300xf32>, tensor<300xf32>
}
