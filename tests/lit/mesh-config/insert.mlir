// Tests that spmd-mesh-config adds @mesh, first, to a module without one.
// RUN: spmd-opt %s --spmd-mesh-config=%S/../Inputs/hybrid.yaml | FileCheck %s

// A module without @mesh gets one, first in the module.
// CHECK: module {
// CHECK-NEXT: spmd.mesh @mesh = <["data"=2, "fsdp"=4, "tensor"=1]>
// CHECK-NEXT: func.func @f
func.func @f(%x: tensor<8xf32>) {
  return
}
