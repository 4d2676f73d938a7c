// Tests that the sharding rules of elementwise ops are as derived.
// RUN: spmd-opt %s --spmd-test-print-rules | FileCheck %s

// Elementwise ops (arith, math, any op whose operands and results share a
// shape): one parallel factor per dimension; scalars are rank 0.
// CHECK-LABEL: func.func @ops
// CHECK: arith.addf {{.*}}spmd.sharding_rule = "([i, j], [i, j]) -> ([i, j]) {i=4, j=8}"
// CHECK: math.exp {{.*}}spmd.sharding_rule = "([i, j]) -> ([i, j]) {i=4, j=8}"
// CHECK: arith.select {{.*}}spmd.sharding_rule = "([i, j], [i, j], [i, j]) -> ([i, j]) {i=4, j=8}"
// CHECK: arith.truncf {{.*}}spmd.sharding_rule = "([i, j]) -> ([i, j]) {i=4, j=8}"
// CHECK: return
// CHECK-NOT: spmd.sharding_rule
func.func @ops(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %m: tensor<4x8xi1>) -> tensor<4x8xbf16> {
  %s = arith.addf %a, %b : tensor<4x8xf32>
  %e = math.exp %s : tensor<4x8xf32>
  %p = arith.select %m, %e, %a : tensor<4x8xi1>, tensor<4x8xf32>
  %t = arith.truncf %p : tensor<4x8xf32> to tensor<4x8xbf16>
  return %t : tensor<4x8xbf16>
}
