// Tests that spmd-test-print-rules works on a module with a mesh: the
// dialect, loaded there, refused the attribute the pass writes ("unknown
// attribute 'spmd.sharding_rule'").
// RUN: spmd-opt %s --spmd-test-print-rules | FileCheck %s

spmd.mesh @mesh = <["data"=2]>

// CHECK: math.exp {{.*}}spmd.sharding_rule = "([i, j]) -> ([i, j]) {i=4, j=8}"
func.func @f(%a: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> tensor<4x8xf32> {
  %0 = math.exp %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
