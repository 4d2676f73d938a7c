// Tests that spmd-comm-report never wraps byte counts beyond int64 around.
// RUN: spmd-opt %s --spmd-comm-report -o /dev/null | FileCheck %s

// Byte counts beyond int64 are never wrapped around (they were: a total of
// -4611686018427387904 bytes for this reshard, planned by negative costs).
// Each device holds 2^62 bytes; half of them must receive their block.
// CHECK:      "bytes": 4611686018427387904,
// CHECK-NEXT: "comm_bytes": 2305843009213693952,
// CHECK-NEXT: "group_size": 4,
// CHECK-NEXT: "min_bytes": 2305843009213693952,
// CHECK-NEXT: "op": "redistribute"
// CHECK:      "min_comm_bytes": 2305843009213693952,
// CHECK-NEXT: "total_comm_bytes": 2305843009213693952
module attributes {spmd.partitioned} {
  spmd.mesh @mesh = <["x"=2, "y"=2]>
  func.func @reshard(%arg0: tensor<1152921504606846976xf32> {spmd.global_type = tensor<2305843009213693952xf32>, spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<1152921504606846976xf32> {spmd.global_type = tensor<2305843009213693952xf32>, spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) {
    %0 = spmd.redistribute %arg0 on @mesh axes = ["x", "y"] from <@mesh, [{"x"}]> to <@mesh, [{"y"}]> global_shape = [2305843009213693952] {spmd.min_bytes = 2305843009213693952 : i64} : tensor<1152921504606846976xf32> -> tensor<1152921504606846976xf32>
    return %0 : tensor<1152921504606846976xf32>
  }
}
