// RUN: spmd-opt %s | spmd-opt | FileCheck %s

// CHECK-LABEL: func.func @plain
// CHECK: spmd.layer_norm %arg0 epsilon = 9.99999974E-6 : tensor<4x8xf32>
func.func @plain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = spmd.layer_norm %x epsilon = 1.0e-5 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @scaled
// CHECK: spmd.layer_norm %arg0 scale %arg1 : tensor<1x1x8xf32> shift %arg2 : tensor<8xf32> epsilon = 5.000000e-01 : tensor<2x3x8xf32>
func.func @scaled(%x: tensor<2x3x8xf32>, %g: tensor<1x1x8xf32>, %b: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %0 = spmd.layer_norm %x scale %g : tensor<1x1x8xf32> shift %b : tensor<8xf32> epsilon = 0.5 : tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// CHECK-LABEL: func.func @shifted
// CHECK: spmd.layer_norm %arg0 shift %arg1 : tensor<8xf32> epsilon
func.func @shifted(%x: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = spmd.layer_norm %x shift %b : tensor<8xf32> epsilon = 0.0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}
