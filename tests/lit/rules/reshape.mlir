// Tests that the sharding rules of reshapes are as derived.
// RUN: spmd-opt %s --spmd-test-print-rules | FileCheck %s

// Reshapes: the finest common factorisation of both shapes (`i,j`: one
// dimension made of two factors); sizes that do not match up (6x10 and
// 4x15) need replication.
// CHECK-LABEL: func.func @collapse
// CHECK: tensor.collapse_shape {{.*}}spmd.sharding_rule = "([i, j, k]) -> ([i,j, k]) {i=4, j=8, k=2}"
// CHECK-LABEL: func.func @expand
// CHECK: tensor.expand_shape {{.*}}spmd.sharding_rule = "([i,j]) -> ([i, j]) {i=4, j=8}"
// CHECK-LABEL: func.func @mismatch
// CHECK: tensor.reshape {{.*}}spmd.sharding_rule = "([i, k], [m]) -> ([j, l]) {i=6, j=4, k=10, l=15, m=2} need_replication={i, j, k, l, m}"
func.func @collapse(%a: tensor<4x8x2xf32>) -> tensor<32x2xf32> {
  %c = tensor.collapse_shape %a [[0, 1], [2]] : tensor<4x8x2xf32> into tensor<32x2xf32>
  return %c : tensor<32x2xf32>
}
func.func @expand(%a: tensor<32xf32>) -> tensor<4x8xf32> {
  %e = tensor.expand_shape %a [[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
func.func @mismatch(%a: tensor<6x10xf32>, %s: tensor<2xi64>) -> tensor<4x15xf32> {
  %r = tensor.reshape %a(%s) : (tensor<6x10xf32>, tensor<2xi64>) -> tensor<4x15xf32>
  return %r : tensor<4x15xf32>
}
