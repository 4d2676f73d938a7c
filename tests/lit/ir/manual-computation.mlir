// spmd.manual_computation round-trips, with several results and no
// operands; propagation takes its boundary as written and gives the body
// only the free axes (none here: every axis is manual, so the body is
// replicated); partitioning inlines the body on operands in their manual
// layouts.
// RUN: spmd-opt %s | FileCheck %s
// RUN: spmd-opt %s --verify-roundtrip -o /dev/null
// RUN: spmd-opt %s --spmd-propagate | FileCheck %s --check-prefix=PROP
// RUN: spmd-opt %s --spmd-propagate --spmd-partition | FileCheck %s --check-prefix=PART

spmd.mesh @mesh = <["data"=2, "model"=4]>

// CHECK-LABEL: func.func @two_results
// PROP-LABEL: func.func @two_results
// PROP-SAME: %arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}
// PROP-SAME: -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>}
// PART-LABEL: func.func @two_results
// PART-SAME: %arg0: tensor<4x16xf32>
func.func @two_results(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  // CHECK: %[[R:.*]]:2 = spmd.manual_computation(%arg0) in_shardings = [<@mesh, [{"data"}, {}]>] out_shardings = [<@mesh, [{"data"}, {"model"}]>, <@mesh, [{"data"}, {}]>] manual_axes = ["data", "model"] (%[[L:.*]]: tensor<4x16xf32>) {
  // CHECK: spmd.yield %{{.*}}, %[[L]] : tensor<4x4xf32>, tensor<4x16xf32>
  // CHECK-NEXT: } : (tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
  // PROP: spmd.manual_computation
  // PROP: tensor.extract_slice {{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>}
  // PROP-NEXT: spmd.yield
  // PART-NOT: spmd.manual_computation
  // PART: %[[I:.*]] = spmd.axis_index "model" on @mesh : index
  // PART: tensor.extract_slice %arg0[0, %{{.*}}] [4, 4] [1, 1]
  %r:2 = spmd.manual_computation(%x)
      in_shardings = [<@mesh, [{"data"}, {}]>]
      out_shardings = [<@mesh, [{"data"}, {"model"}]>, <@mesh, [{"data"}, {}]>]
      manual_axes = ["data", "model"]
      (%l: tensor<4x16xf32>) {
    %i = spmd.axis_index "model" on @mesh : index
    %c4 = arith.constant 4 : index
    %o = arith.muli %i, %c4 : index
    %s = tensor.extract_slice %l[0, %o] [4, 4] [1, 1] : tensor<4x16xf32> to tensor<4x4xf32>
    spmd.yield %s, %l : tensor<4x4xf32>, tensor<4x16xf32>
  } : (tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
  %sum = arith.addf %r#0, %r#1 : tensor<8x16xf32>
  return %r#0, %sum : tensor<8x16xf32>, tensor<8x16xf32>
}

// CHECK-LABEL: func.func @no_operands
// CHECK: spmd.manual_computation() in_shardings = [] out_shardings = [<@mesh, [{"model"}]>] manual_axes = ["model"] () {
func.func @no_operands() -> tensor<8xf32> {
  %r = spmd.manual_computation()
      in_shardings = [] out_shardings = [<@mesh, [{"model"}]>]
      manual_axes = ["model"] () {
    %c = arith.constant dense<1.0> : tensor<2xf32>
    spmd.yield %c : tensor<2xf32>
  } : () -> tensor<8xf32>
  return %r : tensor<8xf32>
}
