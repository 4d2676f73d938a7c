// Tests that spmd-partition's reshard search stops at its budget on a reshard
// involving seven axes (layouts grow factorially), says so, and falls back
// to reduce, gather, slice (pipeline/partition-cases.test runs the result
// and compares).
// RUN: spmd-opt %s --spmd-partition 2>&1 | FileCheck %s

// CHECK: remark: reshard planning stopped after 4000 layouts
// CHECK: spmd.all_reduce
// CHECK: spmd.all_slice
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=2, "e"=2, "f"=2, "g"=2]>
func.func @f(%arg0: tensor<9x8x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", "c"}, {"d", "e"}, {"f"}], partial={"g"}>}) -> (tensor<9x8x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"e", "c"}, {"g", "a"}, {"b", "d", "f"}]>}) {
  return %arg0 : tensor<9x8x6xf32>
}
