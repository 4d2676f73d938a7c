// Bodies whose values are partly the same on every lane of a block (a row's
// statistic, an index of an outer loop, a value from outside): the
// evaluator computes those once per block. Each function has a twin whose
// loops are swapped, so that what was the same on every lane differs from
// lane to lane there: the two must agree.

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#cols = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d1)>

// Layer norm's last step: (x - s / n) * rsqrt(|v| / n + eps).
func.func @norm(%x: tensor<6x300xf32>, %s: tensor<6xf32>, %v: tensor<6xf32>) -> tensor<6x300xf32> {
  %n = arith.constant 300.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e = tensor.empty() : tensor<6x300xf32>
  %y = linalg.generic {indexing_maps = [#rows, #row, #row, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s, %v : tensor<6x300xf32>, tensor<6xf32>, tensor<6xf32>) outs(%e : tensor<6x300xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %m = arith.divf %b, %n : f32
    %d = arith.subf %a, %m : f32
    %av = math.absf %c : f32
    %q = arith.divf %av, %n : f32
    %qe = arith.addf %q, %eps : f32
    %r = math.rsqrt %qe : f32
    %w = arith.mulf %d, %r : f32
    linalg.yield %w : f32
  } -> tensor<6x300xf32>
  return %y : tensor<6x300xf32>
}

func.func @norm_ref(%x: tensor<6x300xf32>, %s: tensor<6xf32>, %v: tensor<6xf32>) -> tensor<6x300xf32> {
  %n = arith.constant 300.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e = tensor.empty() : tensor<6x300xf32>
  %y = linalg.generic {indexing_maps = [#cols, #col, #col, #cols], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s, %v : tensor<6x300xf32>, tensor<6xf32>, tensor<6xf32>) outs(%e : tensor<6x300xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %m = arith.divf %b, %n : f32
    %d = arith.subf %a, %m : f32
    %av = math.absf %c : f32
    %q = arith.divf %av, %n : f32
    %qe = arith.addf %q, %eps : f32
    %r = math.rsqrt %qe : f32
    %w = arith.mulf %d, %r : f32
    linalg.yield %w : f32
  } -> tensor<6x300xf32>
  return %y : tensor<6x300xf32>
}

// Only a row's value is yielded, and the row's index chooses and scales:
// integer and index arithmetic, compares and selects on the outer index,
// the inner index mixed in.
func.func @indices(%x: tensor<6x300xf32>, %r: tensor<6xi32>) -> (tensor<6x300xf32>, tensor<6x300xf32>) {
  %three = arith.constant 3 : i32
  %e = tensor.empty() : tensor<6x300xf32>
  %y:2 = linalg.generic {indexing_maps = [#rows, #row, #rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : tensor<6x300xf32>, tensor<6xi32>) outs(%e, %e : tensor<6x300xf32>, tensor<6x300xf32>) {
  ^bb0(%a: f32, %b: i32, %o: f32, %o2: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %u = arith.muli %ii, %b : i32
    %u3 = arith.subi %u, %three : i32
    %pos = arith.cmpi sgt, %u3, %three : i32
    %uf = arith.sitofp %u3 : i32 to f32
    %ex = math.exp %uf : f32
    %pick = arith.select %pos, %a, %uf : f32
    %jj = arith.index_cast %j : index to i32
    %w = arith.addi %jj, %u : i32
    %wf = arith.sitofp %w : i32 to f32
    %sum = arith.addf %pick, %wf : f32
    linalg.yield %sum, %ex : f32, f32
  } -> (tensor<6x300xf32>, tensor<6x300xf32>)
  return %y#0, %y#1 : tensor<6x300xf32>, tensor<6x300xf32>
}

func.func @indices_ref(%x: tensor<6x300xf32>, %r: tensor<6xi32>) -> (tensor<6x300xf32>, tensor<6x300xf32>) {
  %three = arith.constant 3 : i32
  %e = tensor.empty() : tensor<6x300xf32>
  %y:2 = linalg.generic {indexing_maps = [#cols, #col, #cols, #cols], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : tensor<6x300xf32>, tensor<6xi32>) outs(%e, %e : tensor<6x300xf32>, tensor<6x300xf32>) {
  ^bb0(%a: f32, %b: i32, %o: f32, %o2: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %u = arith.muli %ii, %b : i32
    %u3 = arith.subi %u, %three : i32
    %pos = arith.cmpi sgt, %u3, %three : i32
    %uf = arith.sitofp %u3 : i32 to f32
    %ex = math.exp %uf : f32
    %pick = arith.select %pos, %a, %uf : f32
    %jj = arith.index_cast %j : index to i32
    %w = arith.addi %jj, %u : i32
    %wf = arith.sitofp %w : i32 to f32
    %sum = arith.addf %pick, %wf : f32
    linalg.yield %sum, %ex : f32, f32
  } -> (tensor<6x300xf32>, tensor<6x300xf32>)
  return %y#0, %y#1 : tensor<6x300xf32>, tensor<6x300xf32>
}

// A table read at the row's position (the same on every lane) and at the
// column's, scaled by a value from outside the body.
func.func @table(%x: tensor<6x300xf32>, %t: tensor<5xf32>, %k: tensor<f32>) -> tensor<6x300xf32> {
  %c5 = arith.constant 5 : index
  %scale = tensor.extract %k[] : tensor<f32>
  %e = tensor.empty() : tensor<6x300xf32>
  %y = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<6x300xf32>) outs(%e : tensor<6x300xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ri = arith.remui %i, %c5 : index
    %rj = arith.remui %j, %c5 : index
    %ti = tensor.extract %t[%ri] : tensor<5xf32>
    %tj = tensor.extract %t[%rj] : tensor<5xf32>
    %si = arith.mulf %ti, %scale : f32
    %p = arith.mulf %a, %si : f32
    %q = arith.addf %p, %tj : f32
    linalg.yield %q : f32
  } -> tensor<6x300xf32>
  return %y : tensor<6x300xf32>
}

func.func @table_ref(%x: tensor<6x300xf32>, %t: tensor<5xf32>, %k: tensor<f32>) -> tensor<6x300xf32> {
  %c5 = arith.constant 5 : index
  %scale = tensor.extract %k[] : tensor<f32>
  %e = tensor.empty() : tensor<6x300xf32>
  %y = linalg.generic {indexing_maps = [#cols, #cols], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<6x300xf32>) outs(%e : tensor<6x300xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 0 : index
    %ri = arith.remui %i, %c5 : index
    %rj = arith.remui %j, %c5 : index
    %ti = tensor.extract %t[%ri] : tensor<5xf32>
    %tj = tensor.extract %t[%rj] : tensor<5xf32>
    %si = arith.mulf %ti, %scale : f32
    %p = arith.mulf %a, %si : f32
    %q = arith.addf %p, %tj : f32
    linalg.yield %q : f32
  } -> tensor<6x300xf32>
  return %y : tensor<6x300xf32>
}
