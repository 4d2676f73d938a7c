// spmd.fusion prints as it parses, and its verifier checks its yield.
// RUN: spmd-opt %s -split-input-file -verify-diagnostics | spmd-opt | FileCheck %s

// CHECK-LABEL: func.func @round_trip
// CHECK: %[[R:.*]] = spmd.fusion -> tensor<4xf32> {
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: spmd.yield %[[E]] : tensor<4xf32>
// CHECK-NEXT: }
func.func @round_trip() -> tensor<4xf32> {
  %r = spmd.fusion -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    spmd.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @wrong_yield() -> tensor<4xf32> {
  // expected-error @+1 {{'spmd.fusion' op must yield values of its result types}}
  %r = spmd.fusion -> tensor<4xf32> {
    %e = tensor.empty() : tensor<8xf32>
    spmd.yield %e : tensor<8xf32>
  }
  return %r : tensor<4xf32>
}
