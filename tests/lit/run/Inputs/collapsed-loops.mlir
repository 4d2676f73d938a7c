// Each entry and its twin compute the same values. The entry's adjacent
// loops are walked as one where every operand is contiguous across them;
// the twin lists its loops in another order, where none can join.

// Loops (i, k, l) join into one for `a` and the output, but not across j:
// `c` does not move along j.
func.func @partial(%a: tensor<2x3x5x64xf32>, %c: tensor<2x5x64xf32>) -> tensor<2x3x5x64xf32> {
  %e = tensor.empty() : tensor<2x3x5x64xf32>
  %h = arith.constant 0.5 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k, l) -> (i, j, k, l)>, affine_map<(i, j, k, l) -> (i, k, l)>, affine_map<(i, j, k, l) -> (i, j, k, l)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a, %c : tensor<2x3x5x64xf32>, tensor<2x5x64xf32>) outs(%e : tensor<2x3x5x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %h : f32
    %s = arith.addf %m, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5x64xf32>
  return %r : tensor<2x3x5x64xf32>
}
func.func @partial_ref(%a: tensor<2x3x5x64xf32>, %c: tensor<2x5x64xf32>) -> tensor<2x3x5x64xf32> {
  %e = tensor.empty() : tensor<2x3x5x64xf32>
  %h = arith.constant 0.5 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(l, k, j, i) -> (i, j, k, l)>, affine_map<(l, k, j, i) -> (i, k, l)>, affine_map<(l, k, j, i) -> (i, j, k, l)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a, %c : tensor<2x3x5x64xf32>, tensor<2x5x64xf32>) outs(%e : tensor<2x3x5x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %h : f32
    %s = arith.addf %m, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5x64xf32>
  return %r : tensor<2x3x5x64xf32>
}

// `b` is read transposed: no loops join.
func.func @transposed(%a: tensor<4x6x8xf32>, %b: tensor<4x8x6xf32>) -> tensor<4x6x8xf32> {
  %e = tensor.empty() : tensor<4x6x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, k, j)>, affine_map<(i, j, k) -> (i, j, k)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b : tensor<4x6x8xf32>, tensor<4x8x6xf32>) outs(%e : tensor<4x6x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x6x8xf32>
  return %r : tensor<4x6x8xf32>
}
func.func @transposed_ref(%a: tensor<4x6x8xf32>, %b: tensor<4x8x6xf32>) -> tensor<4x6x8xf32> {
  %e = tensor.empty() : tensor<4x6x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(k, j, i) -> (i, j, k)>, affine_map<(k, j, i) -> (i, k, j)>, affine_map<(k, j, i) -> (i, j, k)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a, %b : tensor<4x6x8xf32>, tensor<4x8x6xf32>) outs(%e : tensor<4x6x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x6x8xf32>
  return %r : tensor<4x6x8xf32>
}

// Two reduction loops join into one of 7 x 300 (a body the reduction
// kernels do not take: the sum of |x| + 1); the twin sums in the same
// order, its parallel loop between the two.
func.func @sums(%a: tensor<3x7x300xf32>) -> tensor<3xf32> {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i)>],
                       iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%a : tensor<3x7x300xf32>) outs(%f : tensor<3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = math.absf %x : f32
    %p = arith.addf %m, %one : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @sums_ref(%a: tensor<3x7x300xf32>) -> tensor<3xf32> {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(j, i, k) -> (i, j, k)>, affine_map<(j, i, k) -> (i)>],
                       iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%a : tensor<3x7x300xf32>) outs(%f : tensor<3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = math.absf %x : f32
    %p = arith.addf %m, %one : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// The body reads the column index: its loop stays apart, or the index
// would run past the row.
func.func @indexed(%a: tensor<5x70xf32>) -> tensor<5x70xf32> {
  %e = tensor.empty() : tensor<5x70xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<5x70xf32>) outs(%e : tensor<5x70xf32>) {
  ^bb0(%x: f32, %o: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %jf = arith.sitofp %ji : i64 to f32
    %s = arith.addf %x, %jf : f32
    linalg.yield %s : f32
  } -> tensor<5x70xf32>
  return %r : tensor<5x70xf32>
}
func.func @indexed_ref(%a: tensor<5x70xf32>) -> tensor<5x70xf32> {
  %e = tensor.empty() : tensor<5x70xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<5x70xf32>) outs(%e : tensor<5x70xf32>) {
  ^bb0(%x: f32, %o: f32):
    %j = linalg.index 0 : index
    %ji = arith.index_cast %j : index to i64
    %jf = arith.sitofp %ji : i64 to f32
    %s = arith.addf %x, %jf : f32
    linalg.yield %s : f32
  } -> tensor<5x70xf32>
  return %r : tensor<5x70xf32>
}
