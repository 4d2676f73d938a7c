// Contractions in several forms: each runs through the Eigen kernel and,
// as <name>_ref, through the evaluator (a body reading the first operand
// with tensor.extract at its index is no plain multiply-add; a body that
// multiplies by one more constant 1.0 is folded into one by the
// canonicalizer, and runs through the same kernel).
func.func @matmul(%a: tensor<8x5xf32>, %b: tensor<5x7xf32>, %c: tensor<8x7xf32>) -> tensor<8x7xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x5xf32>, tensor<5x7xf32>) outs(%c : tensor<8x7xf32>) -> tensor<8x7xf32>
  return %0 : tensor<8x7xf32>
}
func.func @matmul_ref(%a: tensor<8x5xf32>, %b: tensor<5x7xf32>, %c: tensor<8x7xf32>) -> tensor<8x7xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x5xf32>, tensor<5x7xf32>) outs(%c : tensor<8x7xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %idx0 = linalg.index 0 : index
    %idx2 = linalg.index 2 : index
    %xe = tensor.extract %a[%idx0, %idx2] : tensor<8x5xf32>
    %p = arith.mulf %xe, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x7xf32>
  return %0 : tensor<8x7xf32>
}
func.func @matmul_tb(%a: tensor<8x5xf32>, %b: tensor<7x5xf32>, %c: tensor<8x7xf32>) -> tensor<8x7xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<8x5xf32>, tensor<7x5xf32>) outs(%c : tensor<8x7xf32>) -> tensor<8x7xf32>
  return %0 : tensor<8x7xf32>
}
func.func @matmul_tb_ref(%a: tensor<8x5xf32>, %b: tensor<7x5xf32>, %c: tensor<8x7xf32>) -> tensor<8x7xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x5xf32>, tensor<7x5xf32>) outs(%c : tensor<8x7xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %idx0 = linalg.index 0 : index
    %idx2 = linalg.index 2 : index
    %xe = tensor.extract %a[%idx0, %idx2] : tensor<8x5xf32>
    %p = arith.mulf %xe, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x7xf32>
  return %0 : tensor<8x7xf32>
}
func.func @batch_matmul(%a: tensor<3x4x6xf64>, %b: tensor<3x6x5xf64>, %c: tensor<3x4x5xf64>) -> tensor<3x4x5xf64> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<3x4x6xf64>, tensor<3x6x5xf64>) outs(%c : tensor<3x4x5xf64>) -> tensor<3x4x5xf64>
  return %0 : tensor<3x4x5xf64>
}
func.func @batch_matmul_ref(%a: tensor<3x4x6xf64>, %b: tensor<3x6x5xf64>, %c: tensor<3x4x5xf64>) -> tensor<3x4x5xf64> {
  %0 = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3x4x6xf64>, tensor<3x6x5xf64>) outs(%c : tensor<3x4x5xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %idx0 = linalg.index 0 : index
    %idx1 = linalg.index 1 : index
    %idx3 = linalg.index 3 : index
    %xe = tensor.extract %a[%idx0, %idx1, %idx3] : tensor<3x4x6xf64>
    %p = arith.mulf %xe, %y : f64
    %s = arith.addf %o, %p : f64
    linalg.yield %s : f64
  } -> tensor<3x4x5xf64>
  return %0 : tensor<3x4x5xf64>
}
func.func @attention_scores(%a: tensor<2x6x3x4xf32>, %b: tensor<2x3x5x4xf32>, %c: tensor<2x3x6x5xf32>) -> tensor<2x3x6x5xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(b, h, q, k, d) -> (b, q, h, d)>, affine_map<(b, h, q, k, d) -> (b, h, k, d)>, affine_map<(b, h, q, k, d) -> (b, h, q, k)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x6x3x4xf32>, tensor<2x3x5x4xf32>) outs(%c : tensor<2x3x6x5xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %y, %x : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<2x3x6x5xf32>
  return %0 : tensor<2x3x6x5xf32>
}
func.func @attention_scores_ref(%a: tensor<2x6x3x4xf32>, %b: tensor<2x3x5x4xf32>, %c: tensor<2x3x6x5xf32>) -> tensor<2x3x6x5xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(b, h, q, k, d) -> (b, q, h, d)>, affine_map<(b, h, q, k, d) -> (b, h, k, d)>, affine_map<(b, h, q, k, d) -> (b, h, q, k)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x6x3x4xf32>, tensor<2x3x5x4xf32>) outs(%c : tensor<2x3x6x5xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %idx0 = linalg.index 0 : index
    %idx2 = linalg.index 2 : index
    %idx1 = linalg.index 1 : index
    %idx4 = linalg.index 4 : index
    %xe = tensor.extract %a[%idx0, %idx2, %idx1, %idx4] : tensor<2x6x3x4xf32>
    %p = arith.mulf %xe, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x6x5xf32>
  return %0 : tensor<2x3x6x5xf32>
}
func.func @transposed_out(%a: tensor<6x9xf32>, %b: tensor<9x4xf32>, %c: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<6x9xf32>, tensor<9x4xf32>) outs(%c : tensor<4x6xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %y, %x : f32
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
func.func @transposed_out_ref(%a: tensor<6x9xf32>, %b: tensor<9x4xf32>, %c: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<6x9xf32>, tensor<9x4xf32>) outs(%c : tensor<4x6xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %idx0 = linalg.index 0 : index
    %idx2 = linalg.index 2 : index
    %xe = tensor.extract %a[%idx0, %idx2] : tensor<6x9xf32>
    %p = arith.mulf %xe, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
func.func @two_k(%a: tensor<5x3x4xf64>, %b: tensor<3x4x6xf64>, %c: tensor<5x6xf64>) -> tensor<5x6xf64> {
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, i, j) -> (m, i, j)>, affine_map<(m, n, i, j) -> (i, j, n)>, affine_map<(m, n, i, j) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : tensor<5x3x4xf64>, tensor<3x4x6xf64>) outs(%c : tensor<5x6xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %p = arith.mulf %y, %x : f64
    %s = arith.addf %p, %o : f64
    linalg.yield %s : f64
  } -> tensor<5x6xf64>
  return %0 : tensor<5x6xf64>
}
func.func @two_k_ref(%a: tensor<5x3x4xf64>, %b: tensor<3x4x6xf64>, %c: tensor<5x6xf64>) -> tensor<5x6xf64> {
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, i, j) -> (m, i, j)>, affine_map<(m, n, i, j) -> (i, j, n)>, affine_map<(m, n, i, j) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : tensor<5x3x4xf64>, tensor<3x4x6xf64>) outs(%c : tensor<5x6xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %idx0 = linalg.index 0 : index
    %idx2 = linalg.index 2 : index
    %idx3 = linalg.index 3 : index
    %xe = tensor.extract %a[%idx0, %idx2, %idx3] : tensor<5x3x4xf64>
    %p = arith.mulf %xe, %y : f64
    %s = arith.addf %o, %p : f64
    linalg.yield %s : f64
  } -> tensor<5x6xf64>
  return %0 : tensor<5x6xf64>
}
// Rows enough for each CPU path's library GEMM (oneDNN, OpenBLAS), B read
// transposed.
func.func @library_rows(%a: tensor<64x33xf32>, %b: tensor<50x33xf32>, %c: tensor<64x50xf32>) -> tensor<64x50xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<64x33xf32>, tensor<50x33xf32>) outs(%c : tensor<64x50xf32>) -> tensor<64x50xf32>
  return %0 : tensor<64x50xf32>
}
func.func @library_rows_ref(%a: tensor<64x33xf32>, %b: tensor<50x33xf32>, %c: tensor<64x50xf32>) -> tensor<64x50xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x33xf32>, tensor<50x33xf32>) outs(%c : tensor<64x50xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %idx0 = linalg.index 0 : index
    %idx2 = linalg.index 2 : index
    %xe = tensor.extract %a[%idx0, %idx2] : tensor<64x33xf32>
    %p = arith.mulf %xe, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x50xf32>
  return %0 : tensor<64x50xf32>
}
// A matmul from a zero fill, as models write it (the kernel starts from
// nothing rather than from the init), large enough for the library GEMM.
func.func @matmul_zero(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%c : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %0 : tensor<64x80xf32>
}
func.func @matmul_zero_ref(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%c : tensor<64x80xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %idx0 = linalg.index 0 : index
    %idx2 = linalg.index 2 : index
    %xe = tensor.extract %a[%idx0, %idx2] : tensor<64x96xf32>
    %p = arith.mulf %xe, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x80xf32>
  return %0 : tensor<64x80xf32>
}
// A transposed output from a zero fill, large enough for the library GEMM:
// computed as C^T = B^T A^T where C lies (the GEMM wrote a dense copy).
// B is also transposed, A is a batch of one.
func.func @transposed_out_large(%a: tensor<1x40x33xf32>, %b: tensor<24x33xf32>) -> tensor<24x40xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x40xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<24x40xf32>) -> tensor<24x40xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (0, m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (n, m)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<1x40x33xf32>, tensor<24x33xf32>) outs(%c : tensor<24x40xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<24x40xf32>
  return %0 : tensor<24x40xf32>
}
func.func @transposed_out_large_ref(%a: tensor<1x40x33xf32>, %b: tensor<24x33xf32>) -> tensor<24x40xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x40xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<24x40xf32>) -> tensor<24x40xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (0, m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (n, m)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<1x40x33xf32>, tensor<24x33xf32>) outs(%c : tensor<24x40xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %idx0 = linalg.index 0 : index
    %idx2 = linalg.index 2 : index
    %c0 = arith.constant 0 : index
    %xe = tensor.extract %a[%c0, %idx0, %idx2] : tensor<1x40x33xf32>
    %p = arith.mulf %xe, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<24x40xf32>
  return %0 : tensor<24x40xf32>
}
