// Tests that --debug-only is accepted, with a note, in builds without traces.
//
// Without assertions (SPMD_ENABLE_ASSERTIONS) --debug-only is accepted and
// says that it traces nothing, instead of being an unknown option.
// UNSUPPORTED: asserts
// RUN: spmd-opt %s --debug-only=spmd-partition -o /dev/null 2>&1 | FileCheck %s
// RUN: spmd-run %s --debug-only=spmd-partition 2>&1 | FileCheck %s
// CHECK: note: --debug-only traces nothing in this build; configure with -DSPMD_ENABLE_ASSERTIONS=ON
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
