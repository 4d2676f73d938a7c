// RUN: spmd-opt %s -split-input-file --spmd-propagate --spmd-partition | FileCheck %s

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
func.func @sum_uneven(%a: tensor<10x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.reduce ins(%a : tensor<10x8xf32>) outs(%f : tensor<8xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

// A max masks with -inf and reduces with max.
// CHECK-LABEL: func.func @max_uneven
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: linalg.reduce
// CHECK: spmd.all_reduce %{{.*}} on @mesh axes = ["x"] reduction = max{{.*}} : tensor<8xf32>
func.func @max_uneven(%a: tensor<10x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                      %init: tensor<8xf32>)
    -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %r = linalg.reduce ins(%a : tensor<10x8xf32>) outs(%init : tensor<8xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.maximumf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

// Elementwise ops on uneven shards need no masking.
// CHECK-LABEL: func.func @elementwise_uneven
// CHECK-SAME: (%[[A:.*]]: tensor<3xf32>
// CHECK-NEXT: %[[E:.*]] = math.exp %[[A]] : tensor<3xf32>
// CHECK-NEXT: return %[[E]]
func.func @elementwise_uneven(%a: tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<10xf32> {
  %0 = math.exp %a : tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

// Gathering an uneven dimension completely cuts the padding off.
// CHECK-LABEL: func.func @gather_uneven
// CHECK: %[[G:.*]] = spmd.all_gather %{{.*}} on @mesh axes = ["x"] gather_dim = 0{{.*}} : tensor<3xf32> -> tensor<12xf32>
// CHECK: tensor.extract_slice %[[G]][0] [10] [1] : tensor<12xf32> to tensor<10xf32>
func.func @gather_uneven(%a: tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>})
    -> (tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  return %a : tensor<10xf32>
}
