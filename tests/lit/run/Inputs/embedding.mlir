// Embedding lookups: a linalg body reads a table defined outside it.
spmd.mesh @mesh = <["x"=2, "y"=2]>

// Table split on the vocabulary: masked local lookup, one all-reduce of the
// output (vocabulary-parallel embedding).
func.func @vocab(%ids: tensor<3x4xi64>, %table: tensor<11x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<3x4x6xf32> {
  %e = tensor.empty() : tensor<3x4x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, s, h) -> (b, s)>, affine_map<(b, s, h) -> (b, s, h)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<3x4xi64>) outs(%e : tensor<3x4x6xf32>) {
  ^bb0(%id: i64, %o: f32):
    // Ids spread over the vocabulary: id + 3 b + 5 s mod 11.
    %i0 = arith.index_cast %id : i64 to index
    %b = linalg.index 0 : index
    %s = linalg.index 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c11 = arith.constant 11 : index
    %b3 = arith.muli %b, %c3 : index
    %s5 = arith.muli %s, %c5 : index
    %i1 = arith.addi %i0, %b3 : index
    %i2 = arith.addi %i1, %s5 : index
    %i = arith.remui %i2, %c11 : index
    %h = linalg.index 2 : index
    %v = tensor.extract %table[%i, %h] : tensor<11x6xf32>
    linalg.yield %v : f32
  } -> tensor<3x4x6xf32>
  return %r : tensor<3x4x6xf32>
}

// Table split on the hidden dimension, output split alike: local lookups.
func.func @hidden(%ids: tensor<3x5xi64> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %table: tensor<11x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>})
    -> (tensor<3x5x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {"y"}]>}) {
  %e = tensor.empty() : tensor<3x5x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, s, h) -> (b, s)>, affine_map<(b, s, h) -> (b, s, h)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<3x5xi64>) outs(%e : tensor<3x5x6xf32>) {
  ^bb0(%id: i64, %o: f32):
    // Ids spread over the vocabulary: id + 3 b + 5 s mod 11.
    %i0 = arith.index_cast %id : i64 to index
    %b = linalg.index 0 : index
    %s = linalg.index 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c11 = arith.constant 11 : index
    %b3 = arith.muli %b, %c3 : index
    %s5 = arith.muli %s, %c5 : index
    %i1 = arith.addi %i0, %b3 : index
    %i2 = arith.addi %i1, %s5 : index
    %i = arith.remui %i2, %c11 : index
    %h = linalg.index 2 : index
    %v = tensor.extract %table[%i, %h] : tensor<11x6xf32>
    linalg.yield %v : f32
  } -> tensor<3x5x6xf32>
  return %r : tensor<3x5x6xf32>
}

// A body that transforms what it reads and sums over positions: the table
// comes whole.
func.func @pooled(%ids: tensor<3x5xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %table: tensor<7x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> tensor<3x6xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x6xf32>) -> tensor<3x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, s, h) -> (b, s)>, affine_map<(b, s, h) -> (b, h)>], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%ids : tensor<3x5xi32>) outs(%f : tensor<3x6xf32>) {
  ^bb0(%id: i32, %o: f32):
    // Ids spread over the vocabulary: id + 3 b + 5 s mod 7.
    %i0 = arith.index_cast %id : i32 to index
    %b = linalg.index 0 : index
    %s = linalg.index 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %b3 = arith.muli %b, %c3 : index
    %s5 = arith.muli %s, %c5 : index
    %i1 = arith.addi %i0, %b3 : index
    %i2 = arith.addi %i1, %s5 : index
    %i = arith.remui %i2, %c7 : index
    %h = linalg.index 2 : index
    %v = tensor.extract %table[%i, %h] : tensor<7x6xf32>
    %t = math.tanh %v : f32
    %sum = arith.addf %t, %o : f32
    linalg.yield %sum : f32
  } -> tensor<3x6xf32>
  return %r : tensor<3x6xf32>
}

// The table's hidden dimension is split over the axis that splits the
// output's rows: no pending sum over it (it would add different rows).
func.func @hidden_axis_taken(%ids: tensor<5xi64> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %table: tensor<6x5xi64> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>})
    -> (tensor<5x5xi64> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %e = tensor.empty() : tensor<5x5xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(b, h) -> (b)>, affine_map<(b, h) -> (b, h)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<5xi64>) outs(%e : tensor<5x5xi64>) {
  ^bb0(%id: i64, %o: i64):
    %i0 = arith.index_cast %id : i64 to index
    %b = linalg.index 0 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %b3 = arith.muli %b, %c3 : index
    %i1 = arith.addi %i0, %b3 : index
    %i = arith.remui %i1, %c6 : index
    %h = linalg.index 1 : index
    %v = tensor.extract %table[%i, %h] : tensor<6x5xi64>
    linalg.yield %v : i64
  } -> tensor<5x5xi64>
  return %r : tensor<5x5xi64>
}
