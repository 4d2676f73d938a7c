// Reductions in several forms: each runs through the reduction kernel
// and, as <name>_ref, through the evaluator (the element read with
// tensor.extract at its index; an identity op such as max(y, y) would be
// folded away by the canonicalizer, leaving the kernel's own form).
func.func @row_sum(%a: tensor<33x300xf32>, %init: tensor<33xf32>) -> tensor<33xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<33x300xf32>) outs(%init : tensor<33xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %o, %x : f32
    linalg.yield %y : f32
  } -> tensor<33xf32>
  return %0 : tensor<33xf32>
}
func.func @row_sum_ref(%a: tensor<33x300xf32>, %init: tensor<33xf32>) -> tensor<33xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<33x300xf32>) outs(%init : tensor<33xf32>) {
  ^bb0(%x: f32, %o: f32):
    %idx0 = linalg.index 0 : index
    %idx1 = linalg.index 1 : index
    %xe = tensor.extract %a[%idx0, %idx1] : tensor<33x300xf32>
    %y = arith.addf %o, %xe : f32
    linalg.yield %y : f32
  } -> tensor<33xf32>
  return %0 : tensor<33xf32>
}
func.func @col_max(%a: tensor<300x17xf64>, %init: tensor<17xf64>) -> tensor<17xf64> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<300x17xf64>) outs(%init : tensor<17xf64>) {
  ^bb0(%x: f64, %o: f64):
    %y = arith.maximumf %o, %x : f64
    linalg.yield %y : f64
  } -> tensor<17xf64>
  return %0 : tensor<17xf64>
}
func.func @col_max_ref(%a: tensor<300x17xf64>, %init: tensor<17xf64>) -> tensor<17xf64> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<300x17xf64>) outs(%init : tensor<17xf64>) {
  ^bb0(%x: f64, %o: f64):
    %idx0 = linalg.index 0 : index
    %idx1 = linalg.index 1 : index
    %xe = tensor.extract %a[%idx0, %idx1] : tensor<300x17xf64>
    %y = arith.maximumf %o, %xe : f64
    linalg.yield %y : f64
  } -> tensor<17xf64>
  return %0 : tensor<17xf64>
}
func.func @mid_min(%a: tensor<4x50x6xi32>, %init: tensor<4x6xi32>) -> tensor<4x6xi32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, k)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a : tensor<4x50x6xi32>) outs(%init : tensor<4x6xi32>) {
  ^bb0(%x: i32, %o: i32):
    %y = arith.minsi %o, %x : i32
    linalg.yield %y : i32
  } -> tensor<4x6xi32>
  return %0 : tensor<4x6xi32>
}
func.func @mid_min_ref(%a: tensor<4x50x6xi32>, %init: tensor<4x6xi32>) -> tensor<4x6xi32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, k)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a : tensor<4x50x6xi32>) outs(%init : tensor<4x6xi32>) {
  ^bb0(%x: i32, %o: i32):
    %idx0 = linalg.index 0 : index
    %idx1 = linalg.index 1 : index
    %idx2 = linalg.index 2 : index
    %xe = tensor.extract %a[%idx0, %idx1, %idx2] : tensor<4x50x6xi32>
    %y = arith.minsi %o, %xe : i32
    linalg.yield %y : i32
  } -> tensor<4x6xi32>
  return %0 : tensor<4x6xi32>
}
func.func @keepdim_sum(%a: tensor<8x129xf64>, %init: tensor<8x1xf64>) -> tensor<8x1xf64> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x129xf64>) outs(%init : tensor<8x1xf64>) {
  ^bb0(%x: f64, %o: f64):
    %y = arith.addf %o, %x : f64
    linalg.yield %y : f64
  } -> tensor<8x1xf64>
  return %0 : tensor<8x1xf64>
}
func.func @keepdim_sum_ref(%a: tensor<8x129xf64>, %init: tensor<8x1xf64>) -> tensor<8x1xf64> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x129xf64>) outs(%init : tensor<8x1xf64>) {
  ^bb0(%x: f64, %o: f64):
    %idx0 = linalg.index 0 : index
    %idx1 = linalg.index 1 : index
    %xe = tensor.extract %a[%idx0, %idx1] : tensor<8x129xf64>
    %y = arith.addf %o, %xe : f64
    linalg.yield %y : f64
  } -> tensor<8x1xf64>
  return %0 : tensor<8x1xf64>
}
func.func @two_dims_maxnum(%a: tensor<3x20x30xf32>, %init: tensor<3xf32>) -> tensor<3xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i)>], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%a : tensor<3x20x30xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maxnumf %o, %x : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @two_dims_maxnum_ref(%a: tensor<3x20x30xf32>, %init: tensor<3xf32>) -> tensor<3xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i)>], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%a : tensor<3x20x30xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %idx0 = linalg.index 0 : index
    %idx1 = linalg.index 1 : index
    %idx2 = linalg.index 2 : index
    %xe = tensor.extract %a[%idx0, %idx1, %idx2] : tensor<3x20x30xf32>
    %y = arith.maxnumf %o, %xe : f32
    linalg.yield %y : f32
  } -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @all_add_i64(%a: tensor<40x7xi64>, %init: tensor<i64>) -> tensor<i64> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<40x7xi64>) outs(%init : tensor<i64>) {
  ^bb0(%x: i64, %o: i64):
    %y = arith.addi %o, %x : i64
    linalg.yield %y : i64
  } -> tensor<i64>
  return %0 : tensor<i64>
}
func.func @all_add_i64_ref(%a: tensor<40x7xi64>, %init: tensor<i64>) -> tensor<i64> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%a : tensor<40x7xi64>) outs(%init : tensor<i64>) {
  ^bb0(%x: i64, %o: i64):
    %idx0 = linalg.index 0 : index
    %idx1 = linalg.index 1 : index
    %xe = tensor.extract %a[%idx0, %idx1] : tensor<40x7xi64>
    %y = arith.addi %o, %xe : i64
    linalg.yield %y : i64
  } -> tensor<i64>
  return %0 : tensor<i64>
}
