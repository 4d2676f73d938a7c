// Tests that spmd-partition pads uneven shards, masks the padding with the
// reduction's identity before reductions, and cuts it off when gathering.
// RUN: spmd-opt %s -split-input-file --spmd-partition | FileCheck %s

spmd.mesh @mesh = <["x"=4]>

// Shards of 10 over 4 devices are 3 long, the last ones padded. A sum
// over the split dimension masks the padding with 0 first (the valid
// length is clamp(10 - index * 3, 0, 3)), then reduces the partial sums.
// CHECK-LABEL: func.func @sum_uneven
// CHECK-SAME: %[[X:.*]]: tensor<3x8xf32>
// CHECK: %[[I:.*]] = spmd.axis_index "x" on @mesh : index
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<3x8xf32>)
// CHECK:   linalg.index 0 : index
// CHECK:   arith.cmpi slt
// CHECK:   arith.select
// CHECK: linalg.reduce
// CHECK: spmd.all_reduce %{{.*}} on @mesh axes = ["x"]{{.*}} : tensor<8xf32>
func.func @sum_uneven(%arg0: tensor<10x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} : tensor<8xf32>
  %1 = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} ins(%cst : f32) outs(%0 : tensor<8xf32>) -> tensor<8xf32>
  %reduced = linalg.reduce ins(%arg0 : tensor<10x8xf32>) outs(%1 : tensor<8xf32>) dimensions = [0]  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>}
    (%in: f32, %init: f32) {
      %2 = arith.addf %in, %init : f32
      linalg.yield %2 : f32
    }
  return %reduced : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

// A max masks with -inf and reduces with max.
// CHECK-LABEL: func.func @max_uneven
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.reduce
// CHECK: spmd.all_reduce %{{.*}} on @mesh axes = ["x"] reduction = max{{.*}} : tensor<8xf32>
func.func @max_uneven(%arg0: tensor<10x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %reduced = linalg.reduce ins(%arg0 : tensor<10x8xf32>) outs(%arg1 : tensor<8xf32>) dimensions = [0]  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>}
    (%in: f32, %init: f32) {
      %0 = arith.maximumf %in, %init : f32
      linalg.yield %0 : f32
    }
  return %reduced : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

// Elementwise ops on uneven shards need no masking.
// CHECK-LABEL: func.func @elementwise_uneven
// CHECK-SAME: (%[[A:.*]]: tensor<3xf32>
// CHECK-NEXT: %[[E:.*]] = math.exp %[[A]] : tensor<3xf32>
// CHECK-NEXT: return %[[E]]
func.func @elementwise_uneven(%arg0: tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %0 = math.exp %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}]>]>} : tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

// Gathering an uneven dimension completely cuts the padding off.
// CHECK-LABEL: func.func @gather_uneven
// CHECK: %[[G:.*]] = spmd.all_gather %{{.*}} on @mesh axes = ["x"] gather_dim = 0{{.*}} : tensor<3xf32> -> tensor<12xf32>
// CHECK: tensor.extract_slice %[[G]][0] [10] [1] : tensor<12xf32> to tensor<10xf32>
func.func @gather_uneven(%arg0: tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  return %arg0 : tensor<10xf32>
}
