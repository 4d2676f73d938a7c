// RUN: spmd-opt %s --spmd-pipeline | FileCheck %s

// Constants of any dialect (their ConstantLike trait): a splat is made in
// the layout it is used in; other constants are whole on every device and
// sliced where they are used split (no communication). A tosa.const was
// cloned with the local type and failed to verify.
spmd.mesh @mesh = <["x"=2]>

// CHECK-LABEL: func.func @constants
// CHECK-DAG: %[[SPLAT:.*]] = arith.constant dense<2.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[WHOLE:.*]] = "tosa.const"() <{values = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}> : () -> tensor<4xf32>
// CHECK-DAG: spmd.all_slice %[[WHOLE]] on @mesh axes = ["x"] slice_dim = 0{{.*}} : tensor<4xf32> -> tensor<2xf32>
// CHECK-NOT: spmd.all_gather
// CHECK: return
func.func @constants(%x: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %t = "tosa.const"() {values = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %two = arith.constant dense<2.0> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.add ins(%t, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.mul ins(%a, %two : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// A splat used in two layouts is made in each, whatever its dialect (a
// tosa.const splat was resharded with collectives).
// CHECK-LABEL: func.func @splat_two_layouts
// CHECK-DAG: arith.constant dense<3.000000e+00> : tensor<2x4xf32>
// CHECK-DAG: arith.constant dense<3.000000e+00> : tensor<4x2xf32>
// CHECK-NOT: spmd.all_
// CHECK-NOT: spmd.all_to_all
// CHECK: return
func.func @splat_two_layouts(%x: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %y: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) {
  %t = "tosa.const"() {values = dense<3.0> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %a = linalg.add ins(%t, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = linalg.add ins(%t, %y : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}

// tensor.splat likewise.
// CHECK-LABEL: func.func @tensor_splat_two_layouts
// CHECK-DAG: tensor.splat %{{.*}} : tensor<2x4xf32>
// CHECK-DAG: tensor.splat %{{.*}} : tensor<4x2xf32>
// CHECK-NOT: spmd.all_
// CHECK: return
func.func @tensor_splat_two_layouts(%x: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %y: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %s: f32) -> (tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) {
  %t = tensor.splat %s : tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %a = linalg.add ins(%t, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = linalg.add ins(%t, %y : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}
