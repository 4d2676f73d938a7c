// RUN: spmd-opt %s --spmd-pipeline --spmd-comm-report -o /dev/null | FileCheck %s

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
spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @reshard(%a: tensor<2305843009213693952xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>})
    -> (tensor<2305843009213693952xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) {
  return %a : tensor<2305843009213693952xf32>
}
