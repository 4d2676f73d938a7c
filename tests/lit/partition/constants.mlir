// Tests that spmd-partition makes a splat constant of any dialect (its
// ConstantLike trait) in the layout it is used in, and keeps other constants
// whole on every device, sliced where they are used split (no
// communication). A tosa.const was cloned with the local type and failed to
// verify.
// RUN: spmd-opt %s --spmd-partition | FileCheck %s

spmd.mesh @mesh = <["x"=2]>

// CHECK-LABEL: func.func @constants
// CHECK-DAG: %[[SPLAT:.*]] = arith.constant dense<2.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[WHOLE:.*]] = "tosa.const"() <{values = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}> : () -> tensor<4xf32>
// CHECK-DAG: spmd.all_slice %[[WHOLE]] on @mesh axes = ["x"] slice_dim = 0{{.*}} : tensor<4xf32> -> tensor<2xf32>
// CHECK-NOT: spmd.all_gather
// CHECK: return
func.func @constants(%arg0: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %0 = "tosa.const"() <{values = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}> {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>} : () -> tensor<4xf32>
  %cst = arith.constant {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>} dense<2.000000e+00> : tensor<4xf32>
  %1 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>} : tensor<4xf32>
  %2 = linalg.add {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>} ins(%0, %arg0 : tensor<4xf32>, tensor<4xf32>) outs(%1 : tensor<4xf32>) -> tensor<4xf32>
  %3 = linalg.mul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>} ins(%2, %cst : tensor<4xf32>, tensor<4xf32>) outs(%1 : tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// A splat used in two layouts is made in each, whatever its dialect (a
// tosa.const splat was resharded with collectives).
// CHECK-LABEL: func.func @splat_two_layouts
// CHECK-DAG: arith.constant dense<3.000000e+00> : tensor<2x4xf32>
// CHECK-DAG: arith.constant dense<3.000000e+00> : tensor<4x2xf32>
// CHECK-NOT: spmd.all_
// CHECK-NOT: spmd.all_to_all
// CHECK: return
func.func @splat_two_layouts(%arg0: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) {
  %0 = "tosa.const"() <{values = dense<3.000000e+00> : tensor<4x4xf32>}> {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} : () -> tensor<4x4xf32>
  %1 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<4x4xf32>
  %2 = linalg.add {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%0, %arg0 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%1 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = linalg.add {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"x"}]>]>} ins(%0, %arg1 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%1 : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %2, %3 : tensor<4x4xf32>, tensor<4x4xf32>
}

// tensor.splat likewise.
// CHECK-LABEL: func.func @tensor_splat_two_layouts
// CHECK-DAG: tensor.splat %{{.*}} : tensor<2x4xf32>
// CHECK-DAG: tensor.splat %{{.*}} : tensor<4x2xf32>
// CHECK-NOT: spmd.all_
// CHECK: return
func.func @tensor_splat_two_layouts(%arg0: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %arg2: f32) -> (tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) {
  %splat = tensor.splat %arg2 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<4x4xf32>
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<4x4xf32>
  %1 = linalg.add {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%splat, %arg0 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = linalg.add {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"x"}]>]>} ins(%splat, %arg1 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %1, %2 : tensor<4x4xf32>, tensor<4x4xf32>
}
