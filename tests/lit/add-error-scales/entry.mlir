// With entry=, only the entry and the functions it calls get scales: the
// others are erased, and may hold ops without a rule (math-ops.mlir's
// roundeven no longer costs its other entries their error scales).
// RUN: spmd-opt %s "--spmd-add-error-scales=half-width=1e-7 entry=main" | FileCheck %s
// RUN: not spmd-opt %s --spmd-add-error-scales=half-width=1e-7 2>&1 | FileCheck %s --check-prefix=ALL

// CHECK: func.func @main(%{{.*}}: f64, %{{.*}}: f64) -> (f64, f64)
// CHECK: func.func private @helper(%{{.*}}: f64, %{{.*}}: f64) -> (f64, f64)
// CHECK-NOT: @unreached
// ALL: error: the error scales have no rule for 'math.floor'

func.func @main(%a: f64) -> f64 {
  %r = func.call @helper(%a) : (f64) -> f64
  return %r : f64
}
func.func private @helper(%a: f64) -> f64 {
  %t = math.tanh %a : f64
  return %t : f64
}
func.func @unreached(%a: f64) -> f64 {
  %f = math.floor %a : f64
  return %f : f64
}
