// Tests that the sharding rules of slices, pads and concatenations are as
// derived.
// RUN: spmd-opt %s --spmd-test-print-rules | FileCheck %s

// Slices, pads and concatenations: dimensions they cut or shift are
// permutation factors (neighbours' data), the others parallel.
// CHECK-LABEL: func.func @ops
// CHECK: tensor.extract_slice {{.*}}spmd.sharding_rule = "([i, j]) -> ([i, j]) {i=4, j=4} permutation={i} windows={operand0[0]: 1*i + [0, 0] + 2}"
// CHECK: spmd.sharding_rule = "([i, j]) -> ([i, j]) {i=8, j=4} permutation={i} windows={operand0[0]: 1*i + [0, 0] - 2 else 0.000000e+00 : f32}"
// CHECK: tensor.concat {{.*}}spmd.sharding_rule = "([i, j], [i, j]) -> ([i, j]) {i=16, j=4} permutation={i}"
// CHECK: tensor.insert_slice {{.*}}spmd.sharding_rule = "([j, k], [i, k]) -> ([i, k]) {i=16, j=4, k=4} permutation={i, j}"
func.func @ops(%a: tensor<8x4xf32>, %b: tensor<8x4xf32>) -> tensor<16x4xf32> {
  %s = tensor.extract_slice %a[2, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %s low[2, 0] high[2, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<4x4xf32> to tensor<8x4xf32>
  %c = tensor.concat dim(0) %p, %b : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
  %i = tensor.insert_slice %s into %c[0, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<16x4xf32>
  return %i : tensor<16x4xf32>
}
