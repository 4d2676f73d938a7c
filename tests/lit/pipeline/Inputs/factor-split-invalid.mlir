// Unannotated input of partition/factor-split-invalid.mlir (which checks the result) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["x"=2]>

func.func @softmax_dimension(%a: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-warning @+1 {{the factor split written on this op ('spmd.factor_split') is not a valid split of it; another is chosen}}
  %p = linalg.softmax {spmd.factor_split = [[], ["x"]]} dimension(1) ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>

func.func @reduction_without_combiner(%a: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<4xf32> {
  %z = arith.constant 0.0 : f32
  %h = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  // expected-warning @+1 {{not a valid split}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%f : tensor<4xf32>) attrs = {spmd.factor_split = [[], ["x"]]} {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.mulf %acc, %h : f32
    %s = arith.addf %m, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
