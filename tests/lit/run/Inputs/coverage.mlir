// Every op of the input language runs, partitioned and not: contractions
// into rank 0, named vector products, softmax, calls in bodies, constant
// globals, gathers; in several element types.
spmd.mesh @mesh = <["x"=2]>
func.func @dot(%a: tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %b: tensor<10xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.dot ins(%a, %b : tensor<10xf32>, tensor<10xf32>) outs(%f : tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
func.func @matvec(%a: tensor<6x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %b: tensor<10xf32>) -> tensor<6xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %r = linalg.matvec ins(%a, %b : tensor<6x10xf32>, tensor<10xf32>) outs(%f : tensor<6xf32>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}
func.func @vecmat(%a: tensor<10xf32>, %b: tensor<10x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<6xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %r = linalg.vecmat ins(%a, %b : tensor<10xf32>, tensor<10x6xf32>) outs(%f : tensor<6xf32>) -> tensor<6xf32>
  return %r : tensor<6xf32>
}
func.func @sum0(%a: tensor<3x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%a : tensor<3x5xf32>) outs(%f : tensor<f32>) dimensions = [0, 1]
    (%x: f32, %o: f32) {
      %s = arith.addf %x, %o : f32
      linalg.yield %s : f32
    }
  return %r : tensor<f32>
}
func.func @softmax(%x: tensor<5x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<5x7xf32> {
  %e = tensor.empty() : tensor<5x7xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<5x7xf32>) outs(%e : tensor<5x7xf32>) -> tensor<5x7xf32>
  return %r : tensor<5x7xf32>
}
func.func private @sigmoid(%x: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %n = arith.negf %x : f32
  %e = math.exp %n : f32
  %d = arith.addf %one, %e : f32
  %r = arith.divf %one, %d : f32
  return %r : f32
}
func.func @lstm_gate(%x: tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4x6xf32> {
  %e = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = func.call @sigmoid(%a) : (f32) -> f32
    linalg.yield %s : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
ml_program.global private @table(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
func.func @global_const(%x: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<4xf32> {
  %t = ml_program.global_load_const @table : tensor<4xf32>
  %r = arith.addf %x, %t : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @gather(%t: tensor<10x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %i: tensor<5x1xindex> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<5x1x6xf32> {
  %r = tensor.gather %t[%i] gather_dims([0]) : (tensor<10x6xf32>, tensor<5x1xindex>) -> tensor<5x1x6xf32>
  return %r : tensor<5x1x6xf32>
}

func.func @dot_i32(%a: tensor<7xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %b: tensor<7xi32>) -> tensor<i32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<i32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %r = linalg.dot ins(%a, %b : tensor<7xi32>, tensor<7xi32>) outs(%f : tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
func.func @softmax_bf16(%x: tensor<3x9xbf16> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<3x9xbf16> {
  %e = tensor.empty() : tensor<3x9xbf16>
  %r = linalg.softmax dimension(1) ins(%x : tensor<3x9xbf16>) outs(%e : tensor<3x9xbf16>) -> tensor<3x9xbf16>
  return %r : tensor<3x9xbf16>
}
func.func @gather_f16_rank_reduced(%t: tensor<4x5x3xf16> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {}]>}, %i: tensor<3x2xi32>) -> tensor<3x3xf16> {
  %r = tensor.gather %t[%i] gather_dims([0, 1]) unique : (tensor<4x5x3xf16>, tensor<3x2xi32>) -> tensor<3x3xf16>
  return %r : tensor<3x3xf16>
}
func.func @dot_generic_f64(%a: tensor<3x5xf64> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %b: tensor<3x5xf64> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<f64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<f64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%a, %b : tensor<3x5xf64>, tensor<3x5xf64>) outs(%f : tensor<f64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %m = arith.mulf %x, %y : f64
    %s = arith.addf %o, %m : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  return %r : tensor<f64>
}
