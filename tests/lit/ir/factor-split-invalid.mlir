// Tests that the dialect refuses an spmd.factor_split attribute that is not,
// per factor, an array of axis names.
// RUN: spmd-opt %s -split-input-file -verify-diagnostics

func.func @not_names(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'spmd.factor_split' is an array, per factor, of axis names}}
  %y = arith.addf %x, %x {spmd.factor_split = [[1]]} : tensor<4xf32>
  return %y : tensor<4xf32>
}
