// Unannotated input of partition/factor-split.mlir (which checks the result) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["model"=2]>

func.func @contraction_split(
    %x: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
    %w: tensor<64x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>})
    -> (tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %m = linalg.matmul {spmd.factor_split = [[], [], ["model"]]}
      ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["model"=2]>

func.func @column_split(
    %x: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
    %w: tensor<64x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>})
    -> (tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %m = linalg.matmul {spmd.factor_split = [[], ["model"], []]}
      ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}
