// Tests that spmd-comm-report's lower bound (`min_bytes`, `min_comm_bytes`) is
// what a device must receive at least.
// RUN: spmd-opt %s -split-input-file --spmd-comm-report -o /dev/null | FileCheck %s

// The report's lower bound: for each reshard, `min_bytes` on its first
// collective is what a device must receive at least (its target block
// minus what it already holds, averaged over the devices; 0 on the
// reshard's other collectives), and `min_comm_bytes` adds them up.

// [{"data"},{"model"}] -> [{"model"},{"data"}] of 64x1024 f32: each device
// holds 32x256 and needs 16x512 (32,768 bytes); half the devices already
// hold half of it: 24,576 on average.
// CHECK-LABEL: "collectives"
// CHECK: "min_bytes": 24576,
// CHECK: "min_comm_bytes": 24576,

// An all_gather over model=4 moves exactly what a device lacks.
// CHECK-LABEL: "collectives"
// CHECK: "comm_bytes": 3072,
// CHECK-NEXT: "group_size": 4,
// CHECK-NEXT: "min_bytes": 3072,
// CHECK: "min_comm_bytes": 3072,
// CHECK-NEXT: "total_comm_bytes": 3072

// A partial sum made whole: the device needs the others' contributions to
// its 16x16 block, 1,024 bytes; the ring all_reduce moves 1,536.
// CHECK-LABEL: "collectives"
// CHECK: "comm_bytes": 1536,
// CHECK-NEXT: "group_size": 4,
// CHECK-NEXT: "min_bytes": 1024,
// CHECK: "min_comm_bytes": 1024,
// CHECK-NEXT: "total_comm_bytes": 1536

// Uneven: 10x4 rows split 4/4/2 over x=3 to columns split 2/2/0. Devices 0
// and 1 need 20 elements and hold 8; device 2 needs none: 8 elements (32
// bytes) on average.
// CHECK-LABEL: "collectives"
// CHECK: "min_comm_bytes": 32,
module attributes {spmd.partitioned} {
  spmd.mesh @mesh = <["data"=2, "model"=4]>
  func.func @transpose(%arg0: tensor<32x256xf32> {spmd.global_type = tensor<64x1024xf32>, spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<16x512xf32> {spmd.global_type = tensor<64x1024xf32>, spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {"data"}]>}) {
    %0 = spmd.redistribute %arg0 on @mesh axes = ["data", "model"] from <@mesh, [{"data"}, {"model"}]> to <@mesh, [{"model"}, {"data"}]> global_shape = [64, 1024] {spmd.min_bytes = 24576 : i64} : tensor<32x256xf32> -> tensor<16x512xf32>
    return %0 : tensor<16x512xf32>
  }
}

// -----

module attributes {spmd.partitioned} {
  spmd.mesh @mesh = <["data"=2, "model"=4]>
  func.func @gather(%arg0: tensor<16x16xf32> {spmd.global_type = tensor<64x16xf32>, spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<64x16xf32> {spmd.global_type = tensor<64x16xf32>, spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
    %0 = spmd.all_gather %arg0 on @mesh axes = ["model"] gather_dim = 0 {spmd.min_bytes = 3072 : i64} : tensor<16x16xf32> -> tensor<64x16xf32>
    return %0 : tensor<64x16xf32>
  }
}

// -----

module attributes {spmd.partitioned} {
  spmd.mesh @mesh = <["data"=2, "model"=4]>
  func.func @reduce(%arg0: tensor<16x16xf32> {spmd.global_type = tensor<16x64xf32>, spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, %arg1: tensor<16x16xf32> {spmd.global_type = tensor<64x16xf32>, spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<16x16xf32> {spmd.global_type = tensor<16x16xf32>, spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<16x16xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<16x16xf32>) -> tensor<16x16xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%1 : tensor<16x16xf32>) -> tensor<16x16xf32>
    %3 = spmd.all_reduce %2 on @mesh axes = ["model"] {spmd.min_bytes = 1024 : i64} : tensor<16x16xf32>
    return %3 : tensor<16x16xf32>
  }
}

// -----

module attributes {spmd.partitioned} {
  spmd.mesh @mesh = <["x"=3]>
  func.func @uneven(%arg0: tensor<4x4xf32> {spmd.global_type = tensor<10x4xf32>, spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<10x2xf32> {spmd.global_type = tensor<10x4xf32>, spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) {
    %0 = spmd.redistribute %arg0 on @mesh axes = ["x"] from <@mesh, [{"x"}, {}]> to <@mesh, [{}, {"x"}]> global_shape = [10, 4] {spmd.min_bytes = 32 : i64} : tensor<4x4xf32> -> tensor<10x2xf32>
    return %0 : tensor<10x2xf32>
  }
}
