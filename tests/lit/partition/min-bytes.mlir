// Tests that spmd-partition marks the first collective of each reshard with
// the bytes a device must receive at least (`spmd.min_bytes`: its target
// block minus what it already holds, averaged over the devices), which
// spmd-comm-report adds up (comm-report/min-bytes.mlir).
// RUN: spmd-opt %s -split-input-file --spmd-partition | FileCheck %s

spmd.mesh @mesh = <["data"=2, "model"=4]>

// A transpose of 64x1024 f32 between [{"data"},{"model"}] and
// [{"model"},{"data"}]: each device holds 32x256 and needs 16x512 (32,768
// bytes); half the devices already hold half of it: 24,576 on average.
// CHECK-LABEL: func.func @transpose
// CHECK: spmd.redistribute {{.*}}{spmd.min_bytes = 24576 : i64}
func.func @transpose(%arg0: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {"data"}]>}) {
  return %arg0 : tensor<64x1024xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// An all_gather over model=4 moves exactly what a device lacks.
// CHECK-LABEL: func.func @gather
// CHECK: spmd.all_gather {{.*}}{spmd.min_bytes = 3072 : i64}
func.func @gather(%arg0: tensor<64x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<64x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  return %arg0 : tensor<64x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// A partial sum made whole: the device needs the others' contributions to
// its 16x16 block, 1,024 bytes.
// CHECK-LABEL: func.func @reduce
// CHECK: spmd.all_reduce {{.*}}{spmd.min_bytes = 1024 : i64}
func.func @reduce(%arg0: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, %arg1: tensor<64x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<16x16xf32>
  %1 = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} ins(%cst : f32) outs(%0 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %2 = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} ins(%arg0, %arg1 : tensor<16x64xf32>, tensor<64x16xf32>) outs(%1 : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %2 : tensor<16x16xf32>
}

// -----

spmd.mesh @mesh = <["x"=3]>

// Uneven: 10x4 rows split 4/4/2 over x=3 to columns split 2/2/0. Devices 0
// and 1 need 20 elements and hold 8; device 2 needs none: 8 elements (32
// bytes) on average.
// CHECK-LABEL: func.func @uneven
// CHECK: spmd.redistribute {{.*}}{spmd.min_bytes = 32 : i64}
func.func @uneven(%arg0: tensor<10x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<10x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) {
  return %arg0 : tensor<10x4xf32>
}
