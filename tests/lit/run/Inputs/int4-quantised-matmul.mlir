spmd.mesh @mesh = <["data"=2, "model"=2]>

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Weight-only int4 quantisation: w[k, n] holds 4-bit integers, dequantised
// as float(w) * scale[n] before the matmul. The weight is split over
// "model" by columns (each device dequantises its own columns).
func.func @by_columns(
    %x: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
    %w: tensor<8x6xi4> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
    %scale: tensor<6xf32>) -> tensor<4x6xf32> {
  %e = tensor.empty() : tensor<8x6xf32>
  %deq = linalg.generic {indexing_maps = [#id, #col, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%w, %scale : tensor<8x6xi4>, tensor<6xf32>) outs(%e : tensor<8x6xf32>) {
    ^bb0(%q: i4, %s: f32, %o: f32):
      %i = arith.extsi %q : i4 to i32
      %f = arith.sitofp %i : i32 to f32
      %m = arith.mulf %f, %s : f32
      linalg.yield %m : f32
  } -> tensor<8x6xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<4x6xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %y = linalg.matmul ins(%x, %deq : tensor<4x8xf32>, tensor<8x6xf32>)
                     outs(%acc : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// The same split by rows (the contraction dimension): each device's
// product is a partial sum, all-reduced over "model". 5 columns: the
// "data" split of the output pads.
func.func @by_rows(
    %x: tensor<3x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>},
    %w: tensor<8x5xi4> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>},
    %scale: tensor<5xf32>) -> tensor<3x5xf32> {
  %e = tensor.empty() : tensor<8x5xf32>
  %deq = linalg.generic {indexing_maps = [#id, #col, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%w, %scale : tensor<8x5xi4>, tensor<5xf32>) outs(%e : tensor<8x5xf32>) {
    ^bb0(%q: i4, %s: f32, %o: f32):
      %f = arith.sitofp %q : i4 to f32
      %m = arith.mulf %f, %s : f32
      linalg.yield %m : f32
  } -> tensor<8x5xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<3x5xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %y = linalg.matmul ins(%x, %deq : tensor<3x8xf32>, tensor<8x5xf32>)
                     outs(%acc : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// Unsigned int4 with a zero point of 8 (what GPTQ-style packers store):
// uitofp reads the 4 bits as 0..15, so the stored -8 (0b1000) is 8 and
// dequantises to 0, and -1 (0b1111) is 15, dequantising to 7. Constant
// weights, negative literals included.
func.func @unsigned_constant(
    %x: tensor<2x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>})
    -> tensor<2x3xf32> {
  %w = arith.constant dense<[[-8, -1, 0], [7, 1, -2], [3, -8, 15], [-7, 4, 8]]> : tensor<4x3xi4>
  %ws = spmd.sharding_constraint %w <@mesh, [{"model"}, {}]> : tensor<4x3xi4>
  %e = tensor.empty() : tensor<4x3xf32>
  %deq = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%ws : tensor<4x3xi4>) outs(%e : tensor<4x3xf32>) {
    ^bb0(%q: i4, %o: f32):
      %u = arith.uitofp %q : i4 to f32
      %eight = arith.constant 8.0 : f32
      %c = arith.subf %u, %eight : f32
      linalg.yield %c : f32
  } -> tensor<4x3xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2x3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = linalg.matmul ins(%x, %deq : tensor<2x4xf32>, tensor<4x3xf32>)
                     outs(%acc : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
