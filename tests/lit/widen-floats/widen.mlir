// Tests that spmd-widen-floats makes every narrow float f64 (types, constants,
// function signatures) and drops the casts between floats, and refuses a
// program that does not verify once widened.
// RUN: spmd-opt %s --split-input-file --spmd-widen-floats -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @f(%{{.*}}: tensor<4xf64>, %{{.*}}: tensor<4xf64>) -> tensor<4xf64>
func.func @f(%a: tensor<4xf32>, %b: tensor<4xbf16>) -> tensor<4xf32> {
  // CHECK: arith.constant dense<5.000000e-01> : tensor<4xf64>
  %c = arith.constant dense<0.5> : tensor<4xf32>
  // CHECK-NOT: arith.extf
  %e = arith.extf %b : tensor<4xbf16> to tensor<4xf32>
  // CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<4xf64>
  %s = arith.addf %a, %e : tensor<4xf32>
  %m = arith.mulf %s, %c : tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// A bitcast of a float to an integer of its width cannot be widened.
// expected-error @+1 {{cannot compute in f64}}
module {
  func.func @g(%a: f32) -> i32 {
    %i = arith.bitcast %a : f32 to i32
    return %i : i32
  }
}
