// Tests that spmd-partition starts every device of a split reduction from its
// init when combine(v, v) == v (any constant for max and min, +-0 for sums),
// and keeps other inits on one device of each group, the identity on the
// others (pipeline/partition-cases.test runs the results and compares).
// RUN: spmd-opt %s --spmd-partition | FileCheck %s

// CHECK-LABEL: func.func @max_rows
// CHECK-NOT: spmd.axis_index
// CHECK: spmd.all_reduce {{.*}} reduction = max
// CHECK-LABEL: func.func @sum_from_one
// CHECK: spmd.axis_index
// CHECK: arith.select
// CHECK: spmd.all_reduce
// CHECK-LABEL: func.func @sum_from_negative_zero
// CHECK-NOT: spmd.axis_index
// CHECK: spmd.all_reduce
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
spmd.mesh @mesh = <["x"=4]>
func.func @max_rows(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} : tensor<8xf32>
  %1 = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} ins(%cst : f32) outs(%0 : tensor<8xf32>) -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x16xf32>) outs(%1 : tensor<8xf32>) attrs =  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} {
  ^bb0(%in: f32, %out: f32):
    %3 = arith.maximumf %in, %out : f32
    linalg.yield %3 : f32
  } -> tensor<8xf32>
  return %2 : tensor<8xf32>
}
func.func @sum_from_one(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %cst = arith.constant 1.000000e+00 : f32
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} : tensor<8xf32>
  %1 = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} ins(%cst : f32) outs(%0 : tensor<8xf32>) -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x16xf32>) outs(%1 : tensor<8xf32>) attrs =  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} {
  ^bb0(%in: f32, %out: f32):
    %3 = arith.addf %in, %out : f32
    linalg.yield %3 : f32
  } -> tensor<8xf32>
  return %2 : tensor<8xf32>
}
func.func @sum_from_negative_zero(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %cst = arith.constant -0.000000e+00 : f32
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} : tensor<8xf32>
  %1 = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} ins(%cst : f32) outs(%0 : tensor<8xf32>) -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x16xf32>) outs(%1 : tensor<8xf32>) attrs =  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} {
  ^bb0(%in: f32, %out: f32):
    %3 = arith.addf %in, %out : f32
    linalg.yield %3 : f32
  } -> tensor<8xf32>
  return %2 : tensor<8xf32>
}
