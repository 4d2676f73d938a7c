// Tests that spmd-partition does not follow a well-formed factor split that
// cannot compute its op: a warning at the op, and the partitioner chooses as
// it would without one. Followed, a split softmax dimension or a split
// reduction without a combiner (acc * 0.5 + x) gives wrong numbers
// (run/factor-split-invalid.test runs the second).
// RUN: spmd-opt %s -split-input-file --spmd-partition -verify-diagnostics | FileCheck %s

spmd.mesh @mesh = <["x"=2]>

// CHECK-LABEL: func.func @softmax_dimension
// CHECK: spmd.all_gather
// CHECK: linalg.softmax {{.*}} ins({{.*}} : tensor<4x8xf32>)
func.func @softmax_dimension(%arg0: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<4x8xf32>
  // expected-warning @+1 {{the factor split written on this op ('spmd.factor_split') is not a valid split of it; another is chosen}}
  %1 = linalg.softmax {spmd.factor_split = [[], ["x"]], spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} dimension(1) ins(%arg0 : tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
spmd.mesh @mesh = <["x"=2]>

// CHECK-LABEL: func.func @reduction_without_combiner
// CHECK: spmd.all_gather
// CHECK: linalg.generic {{.*}} ins({{.*}} : tensor<4x8xf32>)
func.func @reduction_without_combiner(%arg0: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 5.000000e-01 : f32
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} : tensor<4xf32>
  %1 = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} ins(%cst : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
  // expected-warning @+1 {{not a valid split}}
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x8xf32>) outs(%1 : tensor<4xf32>) attrs =  {spmd.factor_split = [[], ["x"]], spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} {
  ^bb0(%in: f32, %out: f32):
    %3 = arith.mulf %out, %cst_0 : f32
    %4 = arith.addf %3, %in : f32
    linalg.yield %4 : f32
  } -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
