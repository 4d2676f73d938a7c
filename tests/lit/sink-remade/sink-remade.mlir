// RUN: spmd-opt --spmd-sink-remade %s | FileCheck %s

// The fill of the second matmul moves past the transpose, so that it is
// not held beside the transpose's input, which dies there; its empty moves
// with it. The first fill stays: its reader follows it.
// CHECK-LABEL: func.func @f
// CHECK: linalg.fill
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: math.tanh
// CHECK-NEXT: tensor.empty() : tensor<128x64xf32>
// CHECK-NEXT: linalg.transpose
// CHECK-NEXT: tensor.empty() : tensor<64x64xf32>
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.matmul
func.func @f(%x: tensor<64x64xf32>, %w: tensor<64x128xf32>) -> tensor<64x64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x64xf32>, tensor<64x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %t = math.tanh %m : tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %f2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %et = tensor.empty() : tensor<128x64xf32>
  %wt = linalg.transpose ins(%m : tensor<64x128xf32>) outs(%et : tensor<128x64xf32>) permutation = [1, 0]
  %g = linalg.matmul ins(%t, %wt : tensor<64x128xf32>, tensor<128x64xf32>) outs(%f2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}

// Inside a loop's body too; a tensor read in the body stays outside it.
// CHECK-LABEL: func.func @loop
// CHECK: %[[OUTER:.*]] = linalg.fill
// CHECK: scf.for
// CHECK: math.exp
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.add ins(%{{.*}}, %[[OUTER]]
func.func @loop(%x: tensor<8xf32>, %n: index) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty() : tensor<8xf32>
  %outer = linalg.fill ins(%one : f32) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<8xf32> {
    %e = tensor.empty() : tensor<8xf32>
    %f = linalg.fill ins(%one : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %y = math.exp %acc : tensor<8xf32>
    %s = linalg.add ins(%y, %outer : tensor<8xf32>, tensor<8xf32>) outs(%f : tensor<8xf32>) -> tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
