// -0.0 through pending sums: a slice inside one shard and one element
// read at a position are sums where the devices that do not hold the data
// add the identity, which must be -0.0 (+0.0 turns -0.0 into +0.0, and
// 1 / x into +inf instead of -inf).
spmd.mesh @mesh = <["model"=4]>

func.func @negate_zero(%c: tensor<32x4xf32>) -> tensor<32x4xf32> {
  %e = tensor.empty() : tensor<32x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<32x4xf32>) outs(%e : tensor<32x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %a = math.absf %x : f32
    %m = arith.mulf %a, %zero : f32
    %n = arith.negf %m : f32
    linalg.yield %n : f32
  } -> tensor<32x4xf32>
  return %r : tensor<32x4xf32>
}

func.func @slice(%c: tensor<32x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %z = func.call @negate_zero(%c) : (tensor<32x4xf32>) -> tensor<32x4xf32>
  %s = tensor.extract_slice %z[10, 0] [4, 4] [1, 1] : tensor<32x4xf32> to tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %q = arith.divf %one, %x : f32
    linalg.yield %q : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

func.func @element(%c: tensor<32x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>},
                   %i: index) -> tensor<1xf32> {
  %z = func.call @negate_zero(%c) : (tensor<32x4xf32>) -> tensor<32x4xf32>
  %c13 = arith.constant 13 : index
  %row = arith.addi %i, %c13 : index
  %c1 = arith.constant 1 : index
  %v = tensor.extract %z[%row, %c1] : tensor<32x4xf32>
  %one = arith.constant 1.0 : f32
  %q = arith.divf %one, %v : f32
  %r = tensor.from_elements %q : tensor<1xf32>
  return %r : tensor<1xf32>
}

// An input with a pending sum: the devices past the first of each group
// hold the sum's identity, so that the input's -0.0 stays -0.0.
func.func @partial_input(%c: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}], partial={"model"}>})
    -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%c : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %q = arith.divf %one, %x : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// A +0.0 init plus products that are all -0.0 is +0.0 (arith's order):
// 1 / C is +inf everywhere. (Eigen's f64 product of small matrices starts
// each sum at its first term, and gave -0.0 where every product was.)
func.func @zero_products() -> tensor<5x7xf64> {
  %a = arith.constant dense<[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                             [-0.0, -0.0, -0.0, -0.0, -0.0, -0.0],
                             [-0.0, -0.0, -0.0, -0.0, -0.0, -0.0],
                             [-0.0, -0.0, -0.0, -0.0, -0.0, -0.0],
                             [-0.0, -0.0, -0.0, -0.0, -0.0, -0.0]]> : tensor<5x6xf64>
  %b = arith.constant dense<[[1.0, 1.0, -1.0, 1.0, 1.0, 1.0, 1.0],
                             [1.0, 1.0, -1.0, 1.0, 1.0, 1.0, 1.0],
                             [1.0, 1.0, -1.0, 1.0, 1.0, 1.0, 1.0],
                             [1.0, 1.0, -1.0, 1.0, 1.0, 1.0, 1.0],
                             [1.0, 1.0, -1.0, 1.0, 1.0, 1.0, 1.0],
                             [1.0, 1.0, -1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<6x7xf64>
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<5x7xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<5x7xf64>) -> tensor<5x7xf64>
  %c = linalg.matmul ins(%a, %b : tensor<5x6xf64>, tensor<6x7xf64>)
                     outs(%f : tensor<5x7xf64>) -> tensor<5x7xf64>
  %q = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<5x7xf64>) outs(%e : tensor<5x7xf64>) {
  ^bb0(%x: f64, %o: f64):
    %one = arith.constant 1.0 : f64
    %d = arith.divf %one, %x : f64
    linalg.yield %d : f64
  } -> tensor<5x7xf64>
  return %q : tensor<5x7xf64>
}
