// Unannotated input of partition/dead-ops.mlir (which checks the result) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<8x4x5xi64> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"x"}]>}, %b: tensor<3xf32>) -> tensor<3xf32> {
  %k = arith.constant 3.0e38 : f32
  %e = tensor.empty() : tensor<4x5xf32>
  %f = linalg.fill ins(%k : f32) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>], iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%a : tensor<8x4x5xi64>) outs(%f : tensor<4x5xf32>) {
  ^bb0(%in: i64, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %c = arith.cmpi ule, %j, %i : index
    %v = arith.sitofp %in : i64 to f32
    %n = arith.constant -3.0 : f32
    %s = arith.select %c, %v, %n : f32
    %m = arith.minimumf %out, %s : f32
    linalg.yield %m : f32
  } -> tensor<4x5xf32>
  return %b : tensor<3xf32>
}
