// Unannotated input of partition/factor-split-errors.mlir (which checks the result) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["model"=2]>

func.func @unknown_axis(%x: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                        %w: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  // expected-error @+1 {{'spmd.factor_split' must list, for each of the op's 3 factors, the mesh axes it is split over}}
  %m = linalg.matmul {spmd.factor_split = [[], ["data"], []]}
      ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["model"=2]>

func.func @axis_twice(%x: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                      %w: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  // expected-error @+1 {{'spmd.factor_split' must list}}
  %m = linalg.matmul {spmd.factor_split = [["model"], ["model"], []]}
      ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["model"=2]>

func.func @too_few(%x: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                   %w: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  // expected-error @+1 {{'spmd.factor_split' must list}}
  %m = linalg.matmul {spmd.factor_split = [[], ["model"]]}
      ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}
