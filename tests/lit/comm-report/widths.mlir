// Tests that spmd-comm-report counts the bytes a device holds for integer
// types of any width.
// RUN: spmd-opt %s --spmd-comm-report -o /dev/null | FileCheck %s

// Bytes count what a device holds: an i12 element takes 2 bytes, an i33
// element 8, an i4 element 1 (the runtime's containers).
// CHECK:     "bytes": 2048,
// CHECK-NEXT: "comm_bytes": 6144,
// CHECK:     "bytes": 8192,
// CHECK-NEXT: "comm_bytes": 24576,
// CHECK:     "bytes": 1024,
// CHECK-NEXT: "comm_bytes": 3072,

spmd.mesh @mesh = <["model"=4]>
func.func @widths(%a: tensor<32x32xi12>, %b: tensor<32x32xi33>, %c: tensor<32x32xi4>) {
  %0 = spmd.all_gather %a on @mesh axes = ["model"] gather_dim = 0 : tensor<32x32xi12> -> tensor<128x32xi12>
  %1 = spmd.all_gather %b on @mesh axes = ["model"] gather_dim = 0 : tensor<32x32xi33> -> tensor<128x32xi33>
  %2 = spmd.all_gather %c on @mesh axes = ["model"] gather_dim = 0 : tensor<32x32xi4> -> tensor<128x32xi4>
  return
}
