// Tests that spmd-import drops a factor split written for an op before import
// folded its constant offsets: the split belongs to the op's former rule (4
// factors, now 2).
// RUN: spmd-opt %s --spmd-import | FileCheck %s

// CHECK-LABEL: func.func @folded_after_planning
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [4, 4] [1, 1] : tensor<4x4xi1> into tensor<4x5xi1>
// CHECK-NOT: factor_split
// CHECK: return
spmd.mesh @mesh = <["y"=2]>
func.func @folded_after_planning(%a: tensor<4x5xi1> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>},
                                 %b: tensor<4x4xi1> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>})
    -> (tensor<4x5xi1> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %c0 = arith.constant 0 : index
  %r = tensor.insert_slice %b into %a[%c0, 0] [4, 4] [1, 1] {spmd.factor_split = [[], [], [], []]}
      : tensor<4x4xi1> into tensor<4x5xi1>
  return %r : tensor<4x5xi1>
}
