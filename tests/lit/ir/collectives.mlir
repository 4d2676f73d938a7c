// Tests that the collective ops round-trip and that those without effect
// fold away.
// RUN: spmd-opt %s | FileCheck %s
// RUN: spmd-opt %s --verify-roundtrip -o /dev/null
// RUN: spmd-opt %s -canonicalize | FileCheck %s --check-prefix=PURE

spmd.mesh @mesh = <["data"=2, "model"=4]>

// CHECK-LABEL: func.func @collectives
func.func @collectives(%x: tensor<8x16xf32>, %u: tensor<7x5xf32>) {
  // CHECK: spmd.all_gather %{{.*}} on @mesh axes = ["model"] gather_dim = 1 : tensor<8x16xf32> -> tensor<8x64xf32>
  %0 = spmd.all_gather %x on @mesh axes = ["model"] gather_dim = 1 : tensor<8x16xf32> -> tensor<8x64xf32>
  // Two axes: the group has 8 devices.
  // CHECK: spmd.all_gather %{{.*}} on @mesh axes = ["data", "model"] gather_dim = 0 : tensor<8x16xf32> -> tensor<64x16xf32>
  %1 = spmd.all_gather %x on @mesh axes = ["data", "model"] gather_dim = 0 : tensor<8x16xf32> -> tensor<64x16xf32>
  // The default reduction is sum and is not printed.
  // CHECK: spmd.all_reduce %{{.*}} on @mesh axes = ["model"] : tensor<8x16xf32>
  %2 = spmd.all_reduce %x on @mesh axes = ["model"] reduction = sum : tensor<8x16xf32>
  // CHECK: spmd.all_reduce %{{.*}} on @mesh axes = ["model", "data"] reduction = max : tensor<8x16xf32>
  %3 = spmd.all_reduce %x on @mesh axes = ["model", "data"] reduction = max : tensor<8x16xf32>
  // CHECK: spmd.reduce_scatter %{{.*}} on @mesh axes = ["model"] scatter_dim = 0 reduction = min : tensor<8x16xf32> -> tensor<2x16xf32>
  %4 = spmd.reduce_scatter %x on @mesh axes = ["model"] scatter_dim = 0 reduction = min : tensor<8x16xf32> -> tensor<2x16xf32>
  // Uneven: 7 over 4 devices gives shards of ceil(7/4) = 2, the last padded.
  // CHECK: spmd.reduce_scatter %{{.*}} on @mesh axes = ["model"] scatter_dim = 0 : tensor<7x5xf32> -> tensor<2x5xf32>
  %5 = spmd.reduce_scatter %u on @mesh axes = ["model"] scatter_dim = 0 : tensor<7x5xf32> -> tensor<2x5xf32>
  // CHECK: spmd.all_to_all %{{.*}} on @mesh axes = ["model"] split_dim = 1 concat_dim = 0 : tensor<8x16xf32> -> tensor<32x4xf32>
  %6 = spmd.all_to_all %x on @mesh axes = ["model"] split_dim = 1 concat_dim = 0 : tensor<8x16xf32> -> tensor<32x4xf32>
  // CHECK: spmd.all_to_all %{{.*}} on @mesh axes = ["data"] split_dim = 0 concat_dim = 0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %7 = spmd.all_to_all %x on @mesh axes = ["data"] split_dim = 0 concat_dim = 0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK: spmd.collective_permute %{{.*}} on @mesh axes = ["model"] pairs = [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<8x16xf32>
  %8 = spmd.collective_permute %x on @mesh axes = ["model"] pairs = [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<8x16xf32>
  // CHECK: spmd.collective_permute %{{.*}} on @mesh axes = ["model"] pairs = [] : tensor<8x16xf32>
  %9 = spmd.collective_permute %x on @mesh axes = ["model"] pairs = [] : tensor<8x16xf32>
  // CHECK: spmd.all_slice %{{.*}} on @mesh axes = ["data"] slice_dim = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
  %10 = spmd.all_slice %x on @mesh axes = ["data"] slice_dim = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
  // CHECK: spmd.all_slice %{{.*}} on @mesh axes = ["model"] slice_dim = 1 : tensor<7x5xf32> -> tensor<7x2xf32>
  %11 = spmd.all_slice %u on @mesh axes = ["model"] slice_dim = 1 : tensor<7x5xf32> -> tensor<7x2xf32>
  // No axes: a group of one device.
  // CHECK: spmd.all_gather %{{.*}} on @mesh axes = [] gather_dim = 0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %12 = spmd.all_gather %x on @mesh axes = [] gather_dim = 0 : tensor<8x16xf32> -> tensor<8x16xf32>
  // CHECK: spmd.axis_index "model" on @mesh : index
  %13 = spmd.axis_index "model" on @mesh : index
  // CHECK: spmd.broadcast %{{.*}} on @mesh axes = ["model"] root = 3 : tensor<8x16xf32>
  %14 = spmd.broadcast %x on @mesh axes = ["model"] root = 3 : tensor<8x16xf32>
  // CHECK: spmd.reduce %{{.*}} on @mesh axes = ["data", "model"] root = 7 : tensor<8x16xf32>
  %15 = spmd.reduce %x on @mesh axes = ["data", "model"] root = 7 reduction = sum : tensor<8x16xf32>
  // CHECK: spmd.reduce %{{.*}} on @mesh axes = ["data"] root = 0 reduction = prod : tensor<7x5xf32>
  %16 = spmd.reduce %u on @mesh axes = ["data"] root = 0 reduction = prod : tensor<7x5xf32>
  return
}

// Collectives have no side effects: unused ones fold away.
// PURE-LABEL: func.func @pure
// PURE-NOT: spmd.
// PURE: return
func.func @pure(%x: tensor<8x16xf32>) {
  %0 = spmd.all_reduce %x on @mesh axes = ["model"] : tensor<8x16xf32>
  return
}

// A redistribute between two layouts: local types from `global_shape`.
// CHECK-LABEL: func.func @redistribute
// CHECK: spmd.redistribute %{{.*}} on @mesh axes = ["data", "model"] from <@mesh, [{"data"}, {"model"}]> to <@mesh, [{"model"}, {"data"}]> global_shape = [64, 1024] : tensor<32x256xf32> -> tensor<16x512xf32>
func.func @redistribute(%x: tensor<32x256xf32>) -> tensor<16x512xf32> {
  %0 = spmd.redistribute %x on @mesh axes = ["data", "model"] from <@mesh, [{"data"}, {"model"}]> to <@mesh, [{"model"}, {"data"}]> global_shape = [64, 1024] : tensor<32x256xf32> -> tensor<16x512xf32>
  return %0 : tensor<16x512xf32>
}
