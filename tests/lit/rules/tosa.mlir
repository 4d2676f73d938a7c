// Tests that tosa.matmul's sharding rule is a batched contraction.
// RUN: spmd-opt %s --spmd-test-print-rules | FileCheck %s

// TOSA's batched matmul: a reduction over the shared dimension.
// CHECK-LABEL: func.func @matmul
// CHECK: tosa.matmul {{.*}}spmd.sharding_rule = "([i, j, k], [i, k, l], [m], [n]) -> ([i, j, l]) {i=2, j=4, k=8, l=3, m=1, n=1} reduction={k} need_replication={m, n} pending=[sum]"
func.func @matmul(%a: tensor<2x4x8xf32>, %b: tensor<2x8x3xf32>, %za: tensor<1xf32>, %zb: tensor<1xf32>) -> tensor<2x4x3xf32> {
  %m = tosa.matmul %a, %b, %za, %zb : (tensor<2x4x8xf32>, tensor<2x8x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x3xf32>
  return %m : tensor<2x4x3xf32>
}
