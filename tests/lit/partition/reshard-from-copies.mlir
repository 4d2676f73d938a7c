// Tests that spmd-partition reshards one value returned in three and four
// layouts, each reshard starting from a copy made for another while the plan
// cache grows (a held plan used to move when the cache rehashed: crashes and
// wrong types).
// RUN: spmd-opt %s --spmd-partition | FileCheck %s

spmd.mesh @mesh = <["data"=2, "model"=4]>

// CHECK-LABEL: func.func @f1
// CHECK: %[[G:.*]] = spmd.all_gather %arg0 on @mesh axes = ["model"] gather_dim = 0 {{.*}} : tensor<2x8xf32> -> tensor<8x8xf32>
// CHECK: %[[M:.*]] = spmd.all_slice %[[G]] on @mesh axes = ["model"] slice_dim = 1 {{.*}} -> tensor<8x2xf32>
// CHECK: %[[D:.*]] = spmd.all_slice %[[G]] on @mesh axes = ["data"] slice_dim = 0 {{.*}} -> tensor<4x8xf32>
// CHECK: return %[[G]], %[[M]], %[[D]] : tensor<8x8xf32>, tensor<8x2xf32>, tensor<4x8xf32>
func.func @f1(%arg0: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}, tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  return %arg0, %arg0, %arg0 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// CHECK-LABEL: func.func @f2
// CHECK: %[[G:.*]] = spmd.all_gather %arg0 on @mesh axes = ["model"] gather_dim = 0 {{.*}} : tensor<4x8xf32> -> tensor<16x8xf32>
// CHECK: %[[M:.*]] = spmd.all_slice %[[G]] on @mesh axes = ["model"] slice_dim = 1 {{.*}} -> tensor<16x2xf32>
// CHECK: %[[D0:.*]] = spmd.all_slice %[[G]] on @mesh axes = ["data"] slice_dim = 0 {{.*}} -> tensor<8x8xf32>
// CHECK: %[[D1:.*]] = spmd.all_slice %[[G]] on @mesh axes = ["data"] slice_dim = 1 {{.*}} -> tensor<16x4xf32>
// CHECK: return %[[G]], %[[M]], %[[D0]], %[[D1]] : tensor<16x8xf32>, tensor<16x2xf32>, tensor<8x8xf32>, tensor<16x4xf32>
func.func @f2(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}, tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}, tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"data"}]>}) {
  return %arg0, %arg0, %arg0, %arg0 : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
}
