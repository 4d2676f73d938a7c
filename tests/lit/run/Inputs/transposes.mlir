// Transposes of each kind (rows that stay rows, the innermost dimension
// moving, element sizes 1, 4 and 8, tensors large enough for two threads)
// as linalg.transpose, which the layout kernel moves, and as a generic
// whose body computes (max of the element with itself), which the
// evaluator runs: the two must agree exactly.

func.func @t2(%x: tensor<300x700xf32>) -> tensor<700x300xf32> {
  %e = tensor.empty() : tensor<700x300xf32>
  %y = linalg.transpose ins(%x : tensor<300x700xf32>) outs(%e : tensor<700x300xf32>) permutation = [1, 0]
  return %y : tensor<700x300xf32>
}

func.func @t2_ref(%x: tensor<300x700xf32>) -> tensor<700x300xf32> {
  %e = tensor.empty() : tensor<700x300xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<300x700xf32>) outs(%e : tensor<700x300xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %a : f32
    linalg.yield %m : f32
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
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3, d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<4x30x50x20xf32>) outs(%e : tensor<50x4x20x30xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %a : f32
    linalg.yield %m : f32
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
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<4x30x50x20xi32>) outs(%e : tensor<4x50x30x20xi32>) {
  ^bb0(%a: i32, %o: i32):
    %m = arith.maxsi %a, %a : i32
    linalg.yield %m : i32
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
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<20x70x60xf64>) outs(%e : tensor<60x70x20xf64>) {
  ^bb0(%a: f64, %o: f64):
    %m = arith.maximumf %a, %a : f64
    linalg.yield %m : f64
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
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<17x33x129xi8>) outs(%e : tensor<33x129x17xi8>) {
  ^bb0(%a: i8, %o: i8):
    %m = arith.maxsi %a, %a : i8
    linalg.yield %m : i8
  } -> tensor<33x129x17xi8>
  return %y : tensor<33x129x17xi8>
}
