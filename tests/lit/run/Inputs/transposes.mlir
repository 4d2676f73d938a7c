// Transposes of each kind (rows that stay rows, the innermost dimension
// moving, element sizes 1, 4 and 8, tensors large enough for two threads,
// and one large enough to be written with streaming stores) as
// linalg.transpose, which the layout kernel moves, and as a generic that
// reads each element at its permuted index with tensor.extract, which the
// evaluator runs. The two must agree exactly. (A reference whose body only
// looks like computing, such as max(a, a), is folded to a transpose by the
// canonicalizer and runs through the same kernel.)

func.func @t2(%x: tensor<300x700xf32>) -> tensor<700x300xf32> {
  %e = tensor.empty() : tensor<700x300xf32>
  %y = linalg.transpose ins(%x : tensor<300x700xf32>) outs(%e : tensor<700x300xf32>) permutation = [1, 0]
  return %y : tensor<700x300xf32>
}

func.func @t2_ref(%x: tensor<300x700xf32>) -> tensor<700x300xf32> {
  %e = tensor.empty() : tensor<700x300xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<700x300xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %v = tensor.extract %x[%i1, %i0] : tensor<300x700xf32>
    linalg.yield %v : f32
  } -> tensor<700x300xf32>
  return %y : tensor<700x300xf32>
}

func.func @t4_inner(%x: tensor<4x30x50x20xf32>) -> tensor<50x4x20x30xf32> {
  %e = tensor.empty() : tensor<50x4x20x30xf32>
  %y = linalg.transpose ins(%x : tensor<4x30x50x20xf32>) outs(%e : tensor<50x4x20x30xf32>) permutation = [2, 0, 3, 1]
  return %y : tensor<50x4x20x30xf32>
}

func.func @t4_inner_ref(%x: tensor<4x30x50x20xf32>) -> tensor<50x4x20x30xf32> {
  %e = tensor.empty() : tensor<50x4x20x30xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e : tensor<50x4x20x30xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %v = tensor.extract %x[%i1, %i3, %i0, %i2] : tensor<4x30x50x20xf32>
    linalg.yield %v : f32
  } -> tensor<50x4x20x30xf32>
  return %y : tensor<50x4x20x30xf32>
}

func.func @t4_rows(%x: tensor<4x30x50x20xi32>) -> tensor<4x50x30x20xi32> {
  %e = tensor.empty() : tensor<4x50x30x20xi32>
  %y = linalg.transpose ins(%x : tensor<4x30x50x20xi32>) outs(%e : tensor<4x50x30x20xi32>) permutation = [0, 2, 1, 3]
  return %y : tensor<4x50x30x20xi32>
}

func.func @t4_rows_ref(%x: tensor<4x30x50x20xi32>) -> tensor<4x50x30x20xi32> {
  %e = tensor.empty() : tensor<4x50x30x20xi32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%e : tensor<4x50x30x20xi32>) {
  ^bb0(%o: i32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %v = tensor.extract %x[%i0, %i2, %i1, %i3] : tensor<4x30x50x20xi32>
    linalg.yield %v : i32
  } -> tensor<4x50x30x20xi32>
  return %y : tensor<4x50x30x20xi32>
}

func.func @t3_f64(%x: tensor<20x70x60xf64>) -> tensor<60x70x20xf64> {
  %e = tensor.empty() : tensor<60x70x20xf64>
  %y = linalg.transpose ins(%x : tensor<20x70x60xf64>) outs(%e : tensor<60x70x20xf64>) permutation = [2, 1, 0]
  return %y : tensor<60x70x20xf64>
}

func.func @t3_f64_ref(%x: tensor<20x70x60xf64>) -> tensor<60x70x20xf64> {
  %e = tensor.empty() : tensor<60x70x20xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<60x70x20xf64>) {
  ^bb0(%o: f64):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %v = tensor.extract %x[%i2, %i1, %i0] : tensor<20x70x60xf64>
    linalg.yield %v : f64
  } -> tensor<60x70x20xf64>
  return %y : tensor<60x70x20xf64>
}

func.func @t3_i8(%x: tensor<17x33x129xi8>) -> tensor<33x129x17xi8> {
  %e = tensor.empty() : tensor<33x129x17xi8>
  %y = linalg.transpose ins(%x : tensor<17x33x129xi8>) outs(%e : tensor<33x129x17xi8>) permutation = [1, 2, 0]
  return %y : tensor<33x129x17xi8>
}

func.func @t3_i8_ref(%x: tensor<17x33x129xi8>) -> tensor<33x129x17xi8> {
  %e = tensor.empty() : tensor<33x129x17xi8>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<33x129x17xi8>) {
  ^bb0(%o: i8):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %v = tensor.extract %x[%i2, %i0, %i1] : tensor<17x33x129xi8>
    linalg.yield %v : i8
  } -> tensor<33x129x17xi8>
  return %y : tensor<33x129x17xi8>
}

func.func @t2_streamed(%x: tensor<1536x1600xf32>) -> tensor<1600x1536xf32> {
  %e = tensor.empty() : tensor<1600x1536xf32>
  %y = linalg.transpose ins(%x : tensor<1536x1600xf32>) outs(%e : tensor<1600x1536xf32>) permutation = [1, 0]
  return %y : tensor<1600x1536xf32>
}

func.func @t2_streamed_ref(%x: tensor<1536x1600xf32>) -> tensor<1600x1536xf32> {
  %e = tensor.empty() : tensor<1600x1536xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<1600x1536xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %v = tensor.extract %x[%i1, %i0] : tensor<1536x1600xf32>
    linalg.yield %v : f32
  } -> tensor<1600x1536xf32>
  return %y : tensor<1600x1536xf32>
}

// Output rows of 1541 f32 (6164 bytes): rows start 32-byte aligned, 16-byte
// aligned or neither, so streamed lines take each kind of store.
func.func @t2_streamed_odd(%x: tensor<1541x1601xf32>) -> tensor<1601x1541xf32> {
  %e = tensor.empty() : tensor<1601x1541xf32>
  %y = linalg.transpose ins(%x : tensor<1541x1601xf32>) outs(%e : tensor<1601x1541xf32>) permutation = [1, 0]
  return %y : tensor<1601x1541xf32>
}

func.func @t2_streamed_odd_ref(%x: tensor<1541x1601xf32>) -> tensor<1601x1541xf32> {
  %e = tensor.empty() : tensor<1601x1541xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<1601x1541xf32>) {
  ^bb0(%o: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %v = tensor.extract %x[%i1, %i0] : tensor<1541x1601xf32>
    linalg.yield %v : f32
  } -> tensor<1601x1541xf32>
  return %y : tensor<1601x1541xf32>
}
