// Tests that spmd.layer_norm's verifier explains each error.
// RUN: spmd-opt %s -split-input-file -verify-diagnostics

func.func @scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'spmd.layer_norm' op needs a dimension to normalize over}}
  %0 = spmd.layer_norm %x epsilon = 1.0e-5 : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @scale_too_long(%x: tensor<4x8xf32>, %g: tensor<9xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'spmd.layer_norm' op needs scale to hold one element per element of a row (8), not 'tensor<9xf32>'}}
  %0 = spmd.layer_norm %x scale %g : tensor<9xf32> epsilon = 1.0e-5 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @shift_per_row(%x: tensor<4x8xf32>, %b: tensor<4x1xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'spmd.layer_norm' op needs shift to hold one element per element of a row (8), not 'tensor<4x1xf32>'}}
  %0 = spmd.layer_norm %x shift %b : tensor<4x1xf32> epsilon = 1.0e-5 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @dynamic_row(%x: tensor<4x?xf32>, %g: tensor<8xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{'spmd.layer_norm' op needs a static last dimension to take a scale}}
  %0 = spmd.layer_norm %x scale %g : tensor<8xf32> epsilon = 1.0e-5 : tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

func.func @f64(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  // expected-error @+1 {{'spmd.layer_norm' op operand #0 must be ranked tensor of 32-bit float values}}
  %0 = spmd.layer_norm %x epsilon = 1.0e-5 : tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}
