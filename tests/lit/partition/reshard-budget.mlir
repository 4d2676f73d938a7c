// RUN: spmd-opt %s --spmd-pipeline 2>&1 | FileCheck %s
// RUN: spmd-run %s --check | FileCheck %s --check-prefix=RAN

// A reshard involving seven axes: layouts grow factorially, so the search
// stops at its budget and says so, and the plan it falls back to (reduce,
// gather, slice) is exact.
// CHECK: remark: reshard planning stopped after 4000 layouts
// CHECK: spmd.all_reduce
// CHECK: spmd.all_slice
// RAN: check: PASS
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=2, "e"=2, "f"=2, "g"=2]>
func.func @f(%x: tensor<9x8x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", "c"}, {"d", "e"}, {"f"}], partial={"g"}>})
    -> (tensor<9x8x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"e", "c"}, {"g", "a"}, {"b", "d", "f"}]>}) {
  return %x : tensor<9x8x6xf32>
}
