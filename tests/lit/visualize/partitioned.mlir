// Tests that spmd-visualize draws a partitioned module's arguments and
// results with their global types.
// RUN: spmd-opt %s --spmd-visualize -o /dev/null 2>&1 | FileCheck %s

// CHECK-LABEL: @f argument 0 tensor<5x4xf32> #spmd.sharding<@mesh, [{"x"}, {"y"}]>
// CHECK-NEXT: +----+----+
// CHECK-NEXT: | 3  | 2  |
// CHECK-NEXT: +----+----+
// CHECK-NEXT: | 1  | 0  |
// CHECK-NEXT: +----+----+
// CHECK: @f argument 1 tensor<6xf32>
// CHECK: @f argument 2 tensor<2x2x2xf32>
// CHECK: @f result 0 tensor<5x4xf32> #spmd.sharding<@mesh, [{}, {}]>
module attributes {spmd.partitioned} {
  spmd.mesh @mesh = <["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>
  func.func @f(%arg0: tensor<3x2xf32> {spmd.global_type = tensor<5x4xf32>, spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}, %arg1: tensor<3xf32> {spmd.global_type = tensor<6xf32>, spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}, %arg2: tensor<1x2x2xf32> {spmd.global_type = tensor<2x2x2xf32>, spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {}]>}) -> (tensor<5x4xf32> {spmd.global_type = tensor<5x4xf32>, spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
    %0 = spmd.redistribute %arg0 on @mesh axes = ["x", "y"] from <@mesh, [{"x"}, {"y"}]> to <@mesh, [{}, {}]> global_shape = [5, 4] {spmd.min_bytes = 60 : i64} : tensor<3x2xf32> -> tensor<5x4xf32>
    return %0 : tensor<5x4xf32>
  }
}
