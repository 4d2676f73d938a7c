// RUN: spmd-opt %s -split-input-file --spmd-pipeline --spmd-comm-report -o /dev/null | FileCheck %s

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
spmd.mesh @mesh = <["data"=2, "model"=4]>

func.func @transpose(%x: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>})
    -> (tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {"data"}]>}) {
  return %x : tensor<64x1024xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @gather(%x: tensor<64x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<64x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  return %x : tensor<64x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @reduce(%a: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                  %b: tensor<64x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x16xf32>) outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

spmd.mesh @mesh = <["x"=3]>
func.func @uneven(%x: tensor<10x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<10x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) {
  return %x : tensor<10x4xf32>
}
