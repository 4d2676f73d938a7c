// Data movement in several forms: each runs through the layout kernel
// and, as <name>_ref, through the evaluator (a body that reads the element
// with tensor.extract at its index; one that combines the element with
// itself, such as max(x, x), is folded to a plain copy by the
// canonicalizer and runs through the layout kernel too).
func.func @transpose2d(%a: tensor<37x53xf32>) -> tensor<53x37xf32> {
  %e = tensor.empty() : tensor<53x37xf32>
  %0 = linalg.transpose ins(%a : tensor<37x53xf32>) outs(%e : tensor<53x37xf32>) permutation = [1, 0]
  return %0 : tensor<53x37xf32>
}
func.func @transpose2d_ref(%a: tensor<37x53xf32>) -> tensor<53x37xf32> {
  %e = tensor.empty() : tensor<53x37xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<37x53xf32>) outs(%e : tensor<53x37xf32>) {
  ^bb0(%x: f32, %o: f32):
    %idx1 = linalg.index 1 : index
    %idx0 = linalg.index 0 : index
    %y = tensor.extract %a[%idx1, %idx0] : tensor<37x53xf32>
    linalg.yield %y : f32
  } -> tensor<53x37xf32>
  return %0 : tensor<53x37xf32>
}
func.func @transpose3d(%a: tensor<5x6x7xi8>) -> tensor<7x5x6xi8> {
  %e = tensor.empty() : tensor<7x5x6xi8>
  %0 = linalg.transpose ins(%a : tensor<5x6x7xi8>) outs(%e : tensor<7x5x6xi8>) permutation = [2, 0, 1]
  return %0 : tensor<7x5x6xi8>
}
func.func @transpose3d_ref(%a: tensor<5x6x7xi8>) -> tensor<7x5x6xi8> {
  %e = tensor.empty() : tensor<7x5x6xi8>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (j, k, i)>, affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<5x6x7xi8>) outs(%e : tensor<7x5x6xi8>) {
  ^bb0(%x: i8, %o: i8):
    %idx1 = linalg.index 1 : index
    %idx2 = linalg.index 2 : index
    %idx0 = linalg.index 0 : index
    %y = tensor.extract %a[%idx1, %idx2, %idx0] : tensor<5x6x7xi8>
    linalg.yield %y : i8
  } -> tensor<7x5x6xi8>
  return %0 : tensor<7x5x6xi8>
}
func.func @transpose_rows(%a: tensor<2x3x4x5xf64>) -> tensor<2x4x3x5xf64> {
  %e = tensor.empty() : tensor<2x4x3x5xf64>
  %0 = linalg.transpose ins(%a : tensor<2x3x4x5xf64>) outs(%e : tensor<2x4x3x5xf64>) permutation = [0, 2, 1, 3]
  return %0 : tensor<2x4x3x5xf64>
}
func.func @transpose_rows_ref(%a: tensor<2x3x4x5xf64>) -> tensor<2x4x3x5xf64> {
  %e = tensor.empty() : tensor<2x4x3x5xf64>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k, l) -> (i, k, j, l)>, affine_map<(i, j, k, l) -> (i, j, k, l)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a : tensor<2x3x4x5xf64>) outs(%e : tensor<2x4x3x5xf64>) {
  ^bb0(%x: f64, %o: f64):
    %idx0 = linalg.index 0 : index
    %idx2 = linalg.index 2 : index
    %idx1 = linalg.index 1 : index
    %idx3 = linalg.index 3 : index
    %y = tensor.extract %a[%idx0, %idx2, %idx1, %idx3] : tensor<2x3x4x5xf64>
    linalg.yield %y : f64
  } -> tensor<2x4x3x5xf64>
  return %0 : tensor<2x4x3x5xf64>
}
func.func @broadcast_mid(%a: tensor<5x7xf32>) -> tensor<5x3x7xf32> {
  %e = tensor.empty() : tensor<5x3x7xf32>
  %0 = linalg.broadcast ins(%a : tensor<5x7xf32>) outs(%e : tensor<5x3x7xf32>) dimensions = [1]
  return %0 : tensor<5x3x7xf32>
}
func.func @broadcast_mid_ref(%a: tensor<5x7xf32>) -> tensor<5x3x7xf32> {
  %e = tensor.empty() : tensor<5x3x7xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<5x7xf32>) outs(%e : tensor<5x3x7xf32>) {
  ^bb0(%x: f32, %o: f32):
    %idx0 = linalg.index 0 : index
    %idx2 = linalg.index 2 : index
    %y = tensor.extract %a[%idx0, %idx2] : tensor<5x7xf32>
    linalg.yield %y : f32
  } -> tensor<5x3x7xf32>
  return %0 : tensor<5x3x7xf32>
}
func.func @broadcast_inner(%a: tensor<5xi32>) -> tensor<5x9xi32> {
  %e = tensor.empty() : tensor<5x9xi32>
  %0 = linalg.broadcast ins(%a : tensor<5xi32>) outs(%e : tensor<5x9xi32>) dimensions = [1]
  return %0 : tensor<5x9xi32>
}
func.func @broadcast_inner_ref(%a: tensor<5xi32>) -> tensor<5x9xi32> {
  %e = tensor.empty() : tensor<5x9xi32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<5xi32>) outs(%e : tensor<5x9xi32>) {
  ^bb0(%x: i32, %o: i32):
    %idx0 = linalg.index 0 : index
    %y = tensor.extract %a[%idx0] : tensor<5xi32>
    linalg.yield %y : i32
  } -> tensor<5x9xi32>
  return %0 : tensor<5x9xi32>
}
func.func @broadcast_transposed(%a: tensor<6x4xf16>) -> tensor<4x3x6xf16> {
  %e = tensor.empty() : tensor<4x3x6xf16>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (k, i)>, affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<6x4xf16>) outs(%e : tensor<4x3x6xf16>) {
  ^bb0(%x: f16, %o: f16):
    linalg.yield %x : f16
  } -> tensor<4x3x6xf16>
  return %0 : tensor<4x3x6xf16>
}
func.func @broadcast_transposed_ref(%a: tensor<6x4xf16>) -> tensor<4x3x6xf16> {
  %e = tensor.empty() : tensor<4x3x6xf16>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (k, i)>, affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<6x4xf16>) outs(%e : tensor<4x3x6xf16>) {
  ^bb0(%x: f16, %o: f16):
    %idx2 = linalg.index 2 : index
    %idx0 = linalg.index 0 : index
    %y = tensor.extract %a[%idx2, %idx0] : tensor<6x4xf16>
    linalg.yield %y : f16
  } -> tensor<4x3x6xf16>
  return %0 : tensor<4x3x6xf16>
}
func.func @copy(%a: tensor<3x8xi1>) -> tensor<3x8xi1> {
  %e = tensor.empty() : tensor<3x8xi1>
  %0 = linalg.copy ins(%a : tensor<3x8xi1>) outs(%e : tensor<3x8xi1>) -> tensor<3x8xi1>
  return %0 : tensor<3x8xi1>
}
func.func @copy_ref(%a: tensor<3x8xi1>) -> tensor<3x8xi1> {
  %e = tensor.empty() : tensor<3x8xi1>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<3x8xi1>) outs(%e : tensor<3x8xi1>) {
  ^bb0(%x: i1, %o: i1):
    %idx0 = linalg.index 0 : index
    %idx1 = linalg.index 1 : index
    %y = tensor.extract %a[%idx0, %idx1] : tensor<3x8xi1>
    linalg.yield %y : i1
  } -> tensor<3x8xi1>
  return %0 : tensor<3x8xi1>
}
// Outputs of 8 MiB and more are written with streaming stores, in bands
// of rows: sizes with leftover tiles and a partial last band.
func.func @transpose_large(%a: tensor<1000x2100xf32>) -> tensor<2100x1000xf32> {
  %e = tensor.empty() : tensor<2100x1000xf32>
  %0 = linalg.transpose ins(%a : tensor<1000x2100xf32>) outs(%e : tensor<2100x1000xf32>) permutation = [1, 0]
  return %0 : tensor<2100x1000xf32>
}
func.func @transpose_large_ref(%a: tensor<1000x2100xf32>) -> tensor<2100x1000xf32> {
  %e = tensor.empty() : tensor<2100x1000xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<1000x2100xf32>) outs(%e : tensor<2100x1000xf32>) {
  ^bb0(%x: f32, %o: f32):
    %idx1 = linalg.index 1 : index
    %idx0 = linalg.index 0 : index
    %y = tensor.extract %a[%idx1, %idx0] : tensor<1000x2100xf32>
    linalg.yield %y : f32
  } -> tensor<2100x1000xf32>
  return %0 : tensor<2100x1000xf32>
}
func.func @transpose_large_f64(%a: tensor<3x600x701xf64>) -> tensor<3x701x600xf64> {
  %e = tensor.empty() : tensor<3x701x600xf64>
  %0 = linalg.transpose ins(%a : tensor<3x600x701xf64>) outs(%e : tensor<3x701x600xf64>) permutation = [0, 2, 1]
  return %0 : tensor<3x701x600xf64>
}
func.func @transpose_large_f64_ref(%a: tensor<3x600x701xf64>) -> tensor<3x701x600xf64> {
  %e = tensor.empty() : tensor<3x701x600xf64>
  %0 = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, j, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<3x600x701xf64>) outs(%e : tensor<3x701x600xf64>) {
  ^bb0(%x: f64, %o: f64):
    %idx0 = linalg.index 0 : index
    %idx2 = linalg.index 2 : index
    %idx1 = linalg.index 1 : index
    %y = tensor.extract %a[%idx0, %idx2, %idx1] : tensor<3x600x701xf64>
    linalg.yield %y : f64
  } -> tensor<3x701x600xf64>
  return %0 : tensor<3x701x600xf64>
}
// Broadcasts whose input is also transposed, large enough for whole tiles
// and two threads: gathered straight into the output (the input was
// permuted into a copy first), the broadcast dimension in the middle or
// innermost.
func.func @broadcast_transposed_mid(%a: tensor<70x128xf32>) -> tensor<128x9x70xf32> {
  %e = tensor.empty() : tensor<128x9x70xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (k, i)>, affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<70x128xf32>) outs(%e : tensor<128x9x70xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<128x9x70xf32>
  return %0 : tensor<128x9x70xf32>
}
func.func @broadcast_transposed_mid_ref(%a: tensor<70x128xf32>) -> tensor<128x9x70xf32> {
  %e = tensor.empty() : tensor<128x9x70xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<128x9x70xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 2 : index
    %y = tensor.extract %a[%k, %i] : tensor<70x128xf32>
    linalg.yield %y : f32
  } -> tensor<128x9x70xf32>
  return %0 : tensor<128x9x70xf32>
}
func.func @broadcast_transposed_inner(%a: tensor<70x128xf32>) -> tensor<128x70x20xf32> {
  %e = tensor.empty() : tensor<128x70x20xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (k, i)>, affine_map<(i, k, j) -> (i, k, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<70x128xf32>) outs(%e : tensor<128x70x20xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<128x70x20xf32>
  return %0 : tensor<128x70x20xf32>
}
func.func @broadcast_transposed_inner_ref(%a: tensor<70x128xf32>) -> tensor<128x70x20xf32> {
  %e = tensor.empty() : tensor<128x70x20xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (i, k, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<128x70x20xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %y = tensor.extract %a[%k, %i] : tensor<70x128xf32>
    linalg.yield %y : f32
  } -> tensor<128x70x20xf32>
  return %0 : tensor<128x70x20xf32>
}
