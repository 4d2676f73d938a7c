// One element read or written at a global position of a split tensor.
spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @insert_static(%a: tensor<10x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}, %v: f32) -> (tensor<10x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}) {
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %r = tensor.insert %v into %a[%c7, %c1] : tensor<10x3xf32>
  return %r : tensor<10x3xf32>
}

func.func @insert_dynamic(%a: tensor<5x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}, %v: f32, %i: index, %j: index) -> tensor<5x7xf32> {
  %c3 = arith.constant 3 : index
  %jj = arith.addi %j, %c3 : index
  %r = tensor.insert %v into %a[%i, %jj] : tensor<5x7xf32>
  return %r : tensor<5x7xf32>
}

func.func @extract_dynamic(%a: tensor<5x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}, %i: index) -> f32 {
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %ii = arith.addi %i, %c3 : index
  %r = tensor.extract %a[%ii, %c6] : tensor<5x7xf32>
  return %r : f32
}

// The element of a pending sum (a matmul over a split contraction).
func.func @extract_partial(%a: tensor<3x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
                           %b: tensor<6x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) -> f32 {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %m = linalg.matmul ins(%a, %b : tensor<3x6xf32>, tensor<6x5xf32>) outs(%f : tensor<3x5xf32>) -> tensor<3x5xf32>
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %r = tensor.extract %m[%c2, %c4] : tensor<3x5xf32>
  return %r : f32
}

// Written into a pending sum, then summed along rows.
func.func @insert_partial(%a: tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>},
                          %b: tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}, %v: f32) -> tensor<4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x6xf32>, tensor<6x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %c3 = arith.constant 3 : index
  %r = tensor.insert %v into %m[%c3, %c3] : tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// An integer table read at positions from data.
func.func @extract_int(%a: tensor<9xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"y", "x"}]>}, %k: tensor<2xi64>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k0 = tensor.extract %k[%c0] : tensor<2xi64>
  %k1 = tensor.extract %k[%c1] : tensor<2xi64>
  %s = arith.addi %k0, %k1 : i64
  %c5 = arith.constant 5 : i64
  %t = arith.addi %s, %c5 : i64
  %i = arith.index_cast %t : i64 to index
  %r = tensor.extract %a[%i] : tensor<9xi32>
  return %r : i32
}
