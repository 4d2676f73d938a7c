// Tests that spmd-partition refuses, where it is written, a factor split that
// is not one list of the mesh's axes per factor of the op's rule.
// RUN: spmd-opt %s -split-input-file --spmd-partition -verify-diagnostics

spmd.mesh @mesh = <["model"=2]>
func.func @unknown_axis(%arg0: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, %arg1: tensor<64x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<16x32xf32>
  %1 = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} ins(%cst : f32) outs(%0 : tensor<16x32xf32>) -> tensor<16x32xf32>
  // expected-error @+1 {{'spmd.factor_split' must list, for each of the op's 3 factors, the mesh axes it is split over}}
  %2 = linalg.matmul {spmd.factor_split = [[], ["data"], []], spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} ins(%arg0, %arg1 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %2 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["model"=2]>
func.func @axis_twice(%arg0: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, %arg1: tensor<64x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<16x32xf32>
  %1 = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} ins(%cst : f32) outs(%0 : tensor<16x32xf32>) -> tensor<16x32xf32>
  // expected-error @+1 {{'spmd.factor_split' must list}}
  %2 = linalg.matmul {spmd.factor_split = [["model"], ["model"], []], spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} ins(%arg0, %arg1 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %2 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["model"=2]>
func.func @too_few(%arg0: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, %arg1: tensor<64x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<16x32xf32>
  %1 = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} ins(%cst : f32) outs(%0 : tensor<16x32xf32>) -> tensor<16x32xf32>
  // expected-error @+1 {{'spmd.factor_split' must list}}
  %2 = linalg.matmul {spmd.factor_split = [[], ["model"]], spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} ins(%arg0, %arg1 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %2 : tensor<16x32xf32>
}
