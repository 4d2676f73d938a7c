// linalg.softmax along each kind of dimension (rows with a stride, the
// first, the last over enough rows for two threads), each with a
// decomposed twin (max, exp of the difference, sum, divide) as reference.

func.func @middle(%x: tensor<3x5x4xf32>) -> tensor<3x5x4xf32> {
  %e = tensor.empty() : tensor<3x5x4xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<3x5x4xf32>) outs(%e : tensor<3x5x4xf32>) -> tensor<3x5x4xf32>
  return %y : tensor<3x5x4xf32>
}

func.func @middle_ref(%x: tensor<3x5x4xf32>) -> tensor<3x5x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<3x4xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<3x4xf32>) -> tensor<3x4xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<3x5x4xf32>) outs(%fm : tensor<3x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.maximumf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<3x4xf32>
  %et = tensor.empty() : tensor<3x5x4xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %m : tensor<3x5x4xf32>, tensor<3x4xf32>) outs(%et : tensor<3x5x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<3x5x4xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<3x4xf32>) -> tensor<3x4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%ex : tensor<3x5x4xf32>) outs(%fs : tensor<3x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<3x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %s : tensor<3x5x4xf32>, tensor<3x4xf32>) outs(%et : tensor<3x5x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.divf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<3x5x4xf32>
  return %y : tensor<3x5x4xf32>
}

func.func @first(%x: tensor<6x7xf32>) -> tensor<6x7xf32> {
  %e = tensor.empty() : tensor<6x7xf32>
  %y = linalg.softmax dimension(0) ins(%x : tensor<6x7xf32>) outs(%e : tensor<6x7xf32>) -> tensor<6x7xf32>
  return %y : tensor<6x7xf32>
}

func.func @first_ref(%x: tensor<6x7xf32>) -> tensor<6x7xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<7xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<7xf32>) -> tensor<7xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<6x7xf32>) outs(%fm : tensor<7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.maximumf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<7xf32>
  %et = tensor.empty() : tensor<6x7xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<6x7xf32>, tensor<7xf32>) outs(%et : tensor<6x7xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<6x7xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<7xf32>) -> tensor<7xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%ex : tensor<6x7xf32>) outs(%fs : tensor<7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<7xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<6x7xf32>, tensor<7xf32>) outs(%et : tensor<6x7xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.divf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<6x7xf32>
  return %y : tensor<6x7xf32>
}

func.func @last_rows(%x: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %e = tensor.empty() : tensor<256x512xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}

func.func @last_rows_ref(%x: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<256xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<256xf32>) -> tensor<256xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x512xf32>) outs(%fm : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.maximumf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<256xf32>
  %et = tensor.empty() : tensor<256x512xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<256x512xf32>, tensor<256xf32>) outs(%et : tensor<256x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<256x512xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%er : tensor<256xf32>) -> tensor<256xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<256x512xf32>) outs(%fs : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<256xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<256x512xf32>, tensor<256xf32>) outs(%et : tensor<256x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.divf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}
