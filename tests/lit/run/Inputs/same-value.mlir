// One value used at several operand positions, each needing its own local
// form (its own halo window, layout, or a whole copy read by a body): the
// partitioner mapped operands by value, so the last position won for all
// (wrong results, or shapes that failed to verify).
spmd.mesh @mesh = <["x"=2]>
spmd.mesh @grid = <["x"=2, "y"=2]>

// A stencil: two windows of one input.
func.func @two_windows(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %e = tensor.empty() : tensor<6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 + 1)>, affine_map<(d0) -> (d0 + 2)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<6xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %d = arith.subf %x, %y : f32
    linalg.yield %d : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// Odd minus even elements.
func.func @haar(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 * 2)>, affine_map<(d0) -> (d0 * 2 + 1)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %d = arith.subf %x, %y : f32
    linalg.yield %d : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// A - transpose(A), the two operands in different layouts.
func.func @skew(%a: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@grid, [{"x"}, {"y"}]>}) -> (tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@grid, [{"x"}, {"y"}]>}) {
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// A * A with A also the accumulator.
func.func @mm_self(%a: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// A reduction whose init is its input.
func.func @red_self(%a: tensor<5x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<5x5xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a : tensor<5x5xf32>) outs(%a : tensor<5x5xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<5x5xf32>
  return %r : tensor<5x5xf32>
}

// A body reading its own operand at a computed position.
func.func @self_gather(%t: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %idx: tensor<8xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%t, %idx : tensor<8xf32>, tensor<8xi32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %j: i32, %o: f32):
    %jj = arith.index_cast %j : i32 to index
    %c7 = arith.constant 7 : index
    %k = arith.subi %c7, %jj : index
    %v = tensor.extract %t[%k] : tensor<8xf32>
    %s = arith.addf %x, %v : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// One value passed to two differently sharded parameters.
func.func private @sub(%p: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@grid, [{"x"}, {}]>}, %q: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@grid, [{"y"}, {}]>}) -> tensor<4x4xf32> {
  %r = arith.subf %p, %q : tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
func.func @call_dup(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = func.call @sub(%a, %a) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
