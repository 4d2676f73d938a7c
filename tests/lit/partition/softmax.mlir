// RUN: spmd-opt %s --spmd-pipeline | FileCheck %s

// linalg.softmax keeps the normalized dimension whole and the others split.
spmd.mesh @mesh = <["x"=2, "y"=2]>
// CHECK-LABEL: func.func @rows
// CHECK-SAME: tensor<3x4xf32>
// CHECK: spmd.all_gather %arg0 on @mesh axes = ["y"] gather_dim = 1
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : tensor<3x7xf32>)
// CHECK-NOT: spmd.all_gather
func.func @rows(%x: tensor<5x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<5x7xf32> {
  %e = tensor.empty() : tensor<5x7xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<5x7xf32>) outs(%e : tensor<5x7xf32>) -> tensor<5x7xf32>
  return %r : tensor<5x7xf32>
}
