// Row norms with an op of the user's own dialect, custom.sum_squares,
// sharded, partitioned and run by the compiler through the models its
// plugin registers (CustomShardingModel.cpp, CustomKernelModel.cpp):
//
//   spmd-run --load-dialect-plugin=libSpmdCustomOpPlugin.so norms.mlir \
//            --entry=norms --check
spmd.mesh @mesh = <["x"=4]>
spmd.mesh @grid = <["rows"=2, "cols"=2]>

// A layer's output split over its features (10 over 4 devices: 3, 3, 3,
// 1), then each row's norm: every device sums the squares of its columns
// (a pending sum), one all-reduce of 6 floats adds them up.
func.func @norms(%x: tensor<6x8xf32>, %w: tensor<8x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x10xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x10xf32>) -> tensor<6x10xf32>
  %y = linalg.matmul ins(%x, %w : tensor<6x8xf32>, tensor<8x10xf32>) outs(%f : tensor<6x10xf32>) -> tensor<6x10xf32>
  %s = custom.sum_squares %y : tensor<6x10xf32> -> tensor<6xf32>
  %r = tensor.empty() : tensor<6xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%s : tensor<6xf32>) outs(%r : tensor<6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %q = math.sqrt %v : f32
    linalg.yield %q : f32
  } -> tensor<6xf32>
  return %n : tensor<6xf32>
}

// Rows split: every device owns whole rows, nothing moves.
func.func @rows(%x: tensor<7x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %s = custom.sum_squares %x : tensor<7x5xf32> -> tensor<7xf32>
  return %s : tensor<7xf32>
}

// Both: rows over one axis, columns over the other, a batch in front.
func.func @both(%x: tensor<3x5x9xf32> {spmd.sharding = #spmd.sharding<@grid, [{}, {"rows"}, {"cols"}]>}) -> (tensor<3x5xf32> {spmd.sharding = #spmd.sharding<@grid, [{}, {"rows"}]>}) {
  %s = custom.sum_squares %x : tensor<3x5x9xf32> -> tensor<3x5xf32>
  return %s : tensor<3x5xf32>
}
