// Tests that spmd-partition run without spmd-propagate returns a result
// that has no sharding whole, as the function's type declares it: the
// sharded local value was returned as it was (invalid IR, reported against
// the user's return).
// RUN: spmd-opt %s --spmd-partition | FileCheck %s

spmd.mesh @mesh = <["x"=2]>

// CHECK-LABEL: func.func @passed_through
// CHECK-SAME: -> (tensor<4x8xf32>
// CHECK: %[[W:.*]] = spmd.all_gather %arg0 on @mesh axes = ["x"] gather_dim = 0
// CHECK: return %[[W]] : tensor<4x8xf32>
func.func @passed_through(%a: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4x8xf32> {
  return %a : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @computed
// CHECK-SAME: -> (tensor<4x8xf32>
// CHECK: spmd.all_gather
// CHECK: return {{.*}} : tensor<4x8xf32>
func.func @computed(%a: tensor<4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<4x8xf32> {
  %t = math.tanh %a : tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
