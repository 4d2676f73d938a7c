// Tests that spmd-add-error-scales makes a function also take the scale of
// each float argument and return the scale of each float result, computed
// beside the values, and refuses an op without a rule.
// RUN: spmd-opt %s --split-input-file --spmd-add-error-scales=half-width=1e-7 -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @f(%{{.*}}: tensor<4xf64>, %{{.*}}: tensor<4xf64>, %{{.*}}: tensor<4xf64>, %{{.*}}: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
func.func @f(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<4xf64> {
  // CHECK: math.sqrt
  // CHECK: return %{{.*}}, %{{.*}} : tensor<4xf64>, tensor<4xf64>
  %s = arith.addf %a, %b : tensor<4xf64>
  return %s : tensor<4xf64>
}

// -----

// floor is discontinuous: a rounding error can move its result by 1. The
// error names it.
module {
  func.func @g(%a: f64) -> f64 {
    // expected-error @+1 {{the error scales have no rule for 'math.floor'}}
    %f = math.floor %a : f64
    return %f : f64
  }
}
