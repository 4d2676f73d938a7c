// RUN: spmd-opt %s --spmd-lower-tosa -split-input-file | FileCheck %s

// TOSA ops become linalg, tensor and arith ops; the rest stays.
// CHECK-LABEL: func.func @tosa
// CHECK-NOT: tosa.
// CHECK: linalg.batch_matmul
// CHECK: linalg.generic
// CHECK: return
func.func @tosa(%x: tensor<2x8x16xf32>, %w: tensor<2x16x12xf32>, %b: tensor<1x1x12xf32>) -> tensor<2x8x12xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %x, %w, %zp, %zp : (tensor<2x8x16xf32>, tensor<2x16x12xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x12xf32>
  %a = tosa.add %m, %b : (tensor<2x8x12xf32>, tensor<1x1x12xf32>) -> tensor<2x8x12xf32>
  return %a : tensor<2x8x12xf32>
}

// -----

// A module without TOSA ops is left exactly as it is.
// CHECK-LABEL: func.func @linalg
// CHECK-NEXT: arith.addf %arg0, %arg0 : tensor<4xf32>
func.func @linalg(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
