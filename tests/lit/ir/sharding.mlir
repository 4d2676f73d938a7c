// Tests that sharding attributes round-trip wherever they may appear.
// RUN: spmd-opt %s -allow-unregistered-dialect | FileCheck %s
// RUN: spmd-opt %s -allow-unregistered-dialect --verify-roundtrip -o /dev/null

spmd.mesh @mesh = <["data"=2, "model"=4]>

// CHECK-LABEL: func.func @arguments
// CHECK-SAME: #spmd.sharding<@mesh, [{"data"}, {}]>
// CHECK-SAME: #spmd.sharding<@mesh, [{"data", "model"}, {?}]>
// CHECK-SAME: #spmd.sharding<@mesh, [{"data", ?}p1, {}], replicated={"model"}>
// CHECK-SAME: #spmd.sharding<@mesh, [{}, {}], partial={"model"}>
// CHECK-SAME: #spmd.sharding<@mesh, [{?}p0, {"model"}p3], partial<max>={"data"}>
// CHECK-SAME: #spmd.sharding<@mesh, [], partial<min>={"data", "model"}>
func.func @arguments(
    %a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
    %b: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", "model"}, {?}]>},
    %c: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", ?}p1, {}], replicated={"model"}>},
    %d: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], partial={"model"}>},
    %e: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}p0, {"model"}p3], partial<max>={"data"}>},
    %f: tensor<f32> {spmd.sharding = #spmd.sharding<@mesh, [], partial<min>={"data", "model"}>}) {
  return
}

// `partial<sum>` is the default and prints as `partial`; uneven dims are fine.
// CHECK-LABEL: func.func @results
// CHECK-SAME: -> (tensor<7x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}], partial={"data"}>})
func.func @results(%x: tensor<7x5xf32>)
    -> (tensor<7x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}], partial<sum>={"data"}>}) {
  return %x : tensor<7x5xf32>
}

// CHECK-LABEL: func.func @inside
func.func @inside(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // CHECK: spmd.sharding_constraint %{{.*}} <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
  %0 = spmd.sharding_constraint %x <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
  // CHECK: arith.addf {{.*}} {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>}
  %1 = arith.addf %0, %0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>} : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// Standalone attributes, as a pass would build them.
// CHECK-LABEL: func.func @standalone
// CHECK-SAME: attr = #spmd.dim<{"data", ?}p2>
func.func @standalone() attributes {attr = #spmd.dim<{"data", ?}p2>} {
  return
}

// Scalars have rank 0: replicated, or a pending reduction.
// CHECK-LABEL: func.func @scalars
// CHECK-SAME: f32 {spmd.sharding = #spmd.sharding<@mesh, []>}
// CHECK-SAME: -> (f32 {spmd.sharding = #spmd.sharding<@mesh, [], partial={"data"}>})
func.func @scalars(%x: f32 {spmd.sharding = #spmd.sharding<@mesh, []>})
    -> (f32 {spmd.sharding = #spmd.sharding<@mesh, [], partial={"data"}>}) {
  return %x : f32
}

// Several results, and a declaration.
// CHECK-LABEL: func.func private @decl
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"model"}]>}
func.func private @decl(tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}]>})

// CHECK-LABEL: func.func @two_results
func.func @two_results(%x: tensor<8xf32>, %y: tensor<4xi32>) {
  // CHECK: "test.pair"{{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}]>, <@mesh, [{?}]>]>
  %0:2 = "test.pair"(%x, %y) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}]>, <@mesh, [{?}]>]>} : (tensor<8xf32>, tensor<4xi32>) -> (tensor<8xf32>, tensor<4xi32>)
  return
}
