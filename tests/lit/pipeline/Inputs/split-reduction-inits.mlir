// Unannotated input of partition/split-reduction-inits.mlir (which checks the result) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["x"=4]>
func.func @max_rows(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>})
    -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x16xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @sum_from_one(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>})
    -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x16xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @sum_from_negative_zero(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>})
    -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %z = arith.constant -0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x16xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
