// Tests that tosa.matmul's sharding rule is a batched contraction, and the
// reductions' rules.
// RUN: spmd-opt %s --spmd-test-print-rules | FileCheck %s

// TOSA's batched matmul: a reduction over the shared dimension.
// CHECK-LABEL: func.func @matmul
// CHECK: tosa.matmul {{.*}}spmd.sharding_rule = "([i, j, k], [i, k, l], [m], [n]) -> ([i, j, l]) {i=2, j=4, k=8, l=3, m=1, n=1} reduction={k} need_replication={m, n} pending=[sum]"
func.func @matmul(%a: tensor<2x4x8xf32>, %b: tensor<2x8x3xf32>, %za: tensor<1xf32>, %zb: tensor<1xf32>) -> tensor<2x4x3xf32> {
  %m = tosa.matmul %a, %b, %za, %zb : (tensor<2x4x8xf32>, tensor<2x8x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x3xf32>
  return %m : tensor<2x4x3xf32>
}

// A reduction: its axis is a reduction factor that the result keeps as a
// dimension of size 1.
// CHECK-LABEL: func.func @reductions
// CHECK: tosa.reduce_sum {{.*}}spmd.sharding_rule = "([i, j]) -> ([i, 1]) {i=4, j=6} reduction={j} pending=[sum]"
// CHECK: tosa.reduce_max {{.*}}spmd.sharding_rule = "([i, j]) -> ([1, j]) {i=4, j=6} reduction={i} pending=[maxnum]"
func.func @reductions(%x: tensor<4x6xf32>) -> (tensor<4x1xf32>, tensor<1x6xf32>) {
  %s = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %m = tosa.reduce_max %x {axis = 0 : i32, nan_mode = #tosa<nan_mode<IGNORE>>} : (tensor<4x6xf32>) -> tensor<1x6xf32>
  return %s, %m : tensor<4x1xf32>, tensor<1x6xf32>
}
