// Tests that spmd-visualize draws the device grid of every annotated argument
// and result.
// RUN: spmd-opt %s --spmd-visualize -o /dev/null 2>&1 | FileCheck %s

// The device grid of every annotated argument and result, with the ids of
// the devices in each block (partitioned.mlir: after partitioning).
spmd.mesh @mesh = <["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>

// CHECK-LABEL: @f argument 0 tensor<5x4xf32> #spmd.sharding<@mesh, [{"x"}, {"y"}]>
// CHECK-NEXT: +----+----+
// CHECK-NEXT: | 3  | 2  |
// CHECK-NEXT: +----+----+
// CHECK-NEXT: | 1  | 0  |
// CHECK-NEXT: +----+----+
// CHECK-NEXT: @f argument 1 tensor<6xf32> #spmd.sharding<@mesh, [{"y"}]>
// CHECK-NEXT: +-----+-----+
// CHECK-NEXT: | 1,3 | 0,2 |
// CHECK-NEXT: +-----+-----+
// CHECK-NEXT: @f argument 2 tensor<2x2x2xf32> #spmd.sharding<@mesh, [{"x"}, {}, {}]>
// CHECK-NEXT:   (only 1-D and 2-D tensors are drawn; this one has 3 dimensions)
// CHECK-NEXT: @f result 0 tensor<5x4xf32> #spmd.sharding<@mesh, [{}, {}]>
// CHECK-NEXT: +---------+
// CHECK-NEXT: | 0,1,2,3 |
// CHECK-NEXT: +---------+
func.func @f(%a: tensor<5x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
             %b: tensor<6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>},
             %c: tensor<2x2x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {}]>})
    -> (tensor<5x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  return %a : tensor<5x4xf32>
}
