// Tests that spmd-comm-report counts each collective's bytes per device, to
// standard output or a file, and reports files it cannot write.
// RUN: spmd-opt %s --spmd-comm-report -o /dev/null | FileCheck %s
// RUN: spmd-opt %s --spmd-comm-report=output=%t.json -o /dev/null && FileCheck %s < %t.json
// RUN: not spmd-opt %s --spmd-comm-report=output=/nonexistent/dir/r.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR
// A file the report cannot be written to whole ended in "LLVM ERROR: IO
// failure on output stream" and a stack dump.
// RUN: not spmd-opt %s --spmd-comm-report=output=/dev/full -o /dev/null 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: error: cannot write the communication report to '/dev/full': No space left on device
// FULL-NOT: LLVM ERROR

// The report of a partitioned program, per device: local operand bytes and
// the ring volume of each collective.
// CHECK: "collectives": [
// CHECK:     "axes": [
// CHECK-NEXT:  "model"
// CHECK:     "bytes": 4096,
// CHECK-NEXT: "comm_bytes": 6144,
// CHECK-NEXT: "group_size": 4,
// CHECK-NEXT: "op": "all_reduce"
// all_gather counts the gathered (output) bytes: 3/4 * 4 * 4096.
// CHECK:     "bytes": 4096,
// CHECK-NEXT: "comm_bytes": 12288,
// CHECK-NEXT: "group_size": 4,
// CHECK-NEXT: "op": "all_gather"
// CHECK:     "bytes": 4096,
// CHECK-NEXT: "comm_bytes": 2048,
// CHECK-NEXT: "group_size": 2,
// CHECK-NEXT: "op": "reduce_scatter"
// CHECK:     "comm_bytes": 0,
// CHECK-NEXT: "group_size": 2,
// CHECK-NEXT: "op": "all_slice"
// CHECK:     "comm_bytes": 3072,
// CHECK-NEXT: "group_size": 4,
// CHECK-NEXT: "op": "all_to_all"
// CHECK:     "comm_bytes": 4096,
// CHECK-NEXT: "group_size": 2,
// CHECK-NEXT: "op": "collective_permute"
// Collectives the user wrote count at their own volume in the lower bound.
// CHECK: "min_comm_bytes": 27648,
// CHECK-NEXT: "total_comm_bytes": 27648
// ERR: error: cannot write the communication report to '/nonexistent/dir/r.json'

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @all(%x: tensor<32x32xf32>) {
  %0 = spmd.all_reduce %x on @mesh axes = ["model"] : tensor<32x32xf32>
  %1 = spmd.all_gather %x on @mesh axes = ["model"] gather_dim = 0 : tensor<32x32xf32> -> tensor<128x32xf32>
  %2 = spmd.reduce_scatter %x on @mesh axes = ["data"] scatter_dim = 0 : tensor<32x32xf32> -> tensor<16x32xf32>
  %3 = spmd.all_slice %x on @mesh axes = ["data"] slice_dim = 1 : tensor<32x32xf32> -> tensor<32x16xf32>
  %4 = spmd.all_to_all %x on @mesh axes = ["model"] split_dim = 0 concat_dim = 1 : tensor<32x32xf32> -> tensor<8x128xf32>
  %5 = spmd.collective_permute %x on @mesh axes = ["data"] pairs = [0 -> 1, 1 -> 0] : tensor<32x32xf32>
  return
}
