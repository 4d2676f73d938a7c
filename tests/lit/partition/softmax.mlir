// Tests that spmd-partition keeps linalg.softmax's normalized dimension
// whole and the others split.
// RUN: spmd-opt %s --spmd-partition | FileCheck %s

spmd.mesh @mesh = <["x"=2, "y"=2]>

// CHECK-LABEL: func.func @rows
// CHECK-SAME: tensor<3x4xf32>
// CHECK: spmd.all_gather %arg0 on @mesh axes = ["y"] gather_dim = 1
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : tensor<3x7xf32>)
// CHECK-NOT: spmd.all_gather
func.func @rows(%arg0: tensor<5x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<5x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<5x7xf32>
  %1 = linalg.softmax {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} dimension(1) ins(%arg0 : tensor<5x7xf32>) outs(%0 : tensor<5x7xf32>) -> tensor<5x7xf32>
  return %1 : tensor<5x7xf32>
}
