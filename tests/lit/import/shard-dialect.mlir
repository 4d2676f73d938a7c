// Tests that spmd-import turns upstream MLIR `shard` dialect annotations into
// meshes, shardings and constraints.
// RUN: spmd-opt %s --spmd-import -split-input-file -verify-diagnostics | FileCheck %s

// A grid becomes a mesh of the same name; a result annotation becomes the
// sharding of the value itself (here, a function argument and an op
// result); an annotation for users becomes a constraint.
// CHECK: spmd.mesh @grid = <["axis0"=2, "axis1"=4]>
// CHECK-NOT: shard.
// CHECK-LABEL: func.func @annotations
// CHECK-SAME: %[[ARG:.*]]: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@grid, [{"axis0"}, {"axis1"}]>}
// CHECK: %[[C:.*]] = spmd.sharding_constraint %[[ARG]] <@grid, [{}, {"axis1", "axis0"}]> : tensor<8x16xf32>
// CHECK: tosa.sigmoid %[[C]] {spmd.sharding = #spmd.sharding_per_value<[<@grid, [{"axis0"}, {}]>]>}
shard.grid @grid(shape = 2x4)
func.func @annotations(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s0 = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %0 = shard.shard %arg0 to %s0 : tensor<8x16xf32>
  %s1 = shard.sharding @grid split_axes = [[], [1, 0]] : !shard.sharding
  %1 = shard.shard %0 to %s1 annotate_for_users : tensor<8x16xf32>
  %2 = tosa.sigmoid %1 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %s2 = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %3 = shard.shard %2 to %s2 : tensor<8x16xf32>
  return %3 : tensor<8x16xf32>
}

// -----

// A second result annotation of one value is a reshard: a constraint.
// CHECK-LABEL: func.func @reannotated
// CHECK: %[[E:.*]] = math.exp {{.*}}#spmd.sharding_per_value<[<@grid, [{"axis0"}]>]>
// CHECK: spmd.sharding_constraint %[[E]] <@grid, [{}]>
shard.grid @grid(shape = 2)
func.func @reannotated(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = math.exp %arg0 : tensor<8xf32>
  %s0 = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %1 = shard.shard %0 to %s0 : tensor<8xf32>
  %s1 = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %2 = shard.shard %0 to %s1 : tensor<8xf32>
  return %2 : tensor<8xf32>
}

// -----

// Scalars (rank 0) take `[[]]`; dynamic grid sizes become 1; split axes past
// the grid's rank become extra size-1 axes.
// CHECK: spmd.mesh @dyn = <["axis0"=1, "axis1"=1]>
// CHECK-LABEL: func.func @lenient
// CHECK: linalg.fill {{.*}}#spmd.sharding_per_value<[<@dyn, []>]>
// CHECK: spmd.sharding_constraint %{{.*}} <@dyn, [{"axis1"}]>
// expected-warning @+2 {{dynamic grid sizes are imported as 1}}
// expected-warning @+1 {{shardings use 2 axes of this 1-axis grid; the extra axes are imported with size 1}}
shard.grid @dyn(shape = ?)
func.func @lenient(%t: tensor<f32>, %v: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %c = arith.constant 0.0 : f32
  %0 = linalg.fill ins(%c : f32) outs(%t : tensor<f32>) -> tensor<f32>
  %s = shard.sharding @dyn split_axes = [[]] : !shard.sharding
  %1 = shard.shard %0 to %s : tensor<f32>
  %s1 = shard.sharding @dyn split_axes = [[1]] : !shard.sharding
  %2 = shard.shard %v to %s1 annotate_for_users : tensor<4xf32>
  return %1, %2 : tensor<f32>, tensor<4xf32>
}

// -----

// Multi-result ops: the unannotated results are left open.
// CHECK-LABEL: func.func @multi_result
// CHECK: scf.for
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@g, [{?}]>, <@g, [{"axis0"}]>]>}
shard.grid @g(shape = 4)
func.func @multi_result(%a: tensor<8xf32>, %b: tensor<8xf32>, %n: index) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %y = %b) -> (tensor<8xf32>, tensor<8xf32>) {
    scf.yield %y, %x : tensor<8xf32>, tensor<8xf32>
  }
  %s = shard.sharding @g split_axes = [[0]] : !shard.sharding
  %1 = shard.shard %0#1 to %s : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @halo(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{cannot import halo sizes or sharded dimension offsets: spmd shardings split dimensions evenly (ceil(d / n) per device)}}
  %s = shard.sharding @grid split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  %0 = shard.shard %arg0 to %s annotate_for_users : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @partitioned(%arg0: tensor<8xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{cannot import 'shard.all_gather': only annotations (shard.grid, shard.sharding, shard.shard) are imported, before partitioning}}
  %0 = shard.all_gather %arg0 on @grid grid_axes = [0] gather_axis = 0 : tensor<8xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @sharding_argument(%arg0: tensor<8xf32>, %s: !shard.sharding) -> tensor<8xf32> {
  // expected-error @+1 {{cannot import: its sharding is not defined by a shard.sharding op}}
  %0 = shard.shard %arg0 to %s : tensor<8xf32>
  return %0 : tensor<8xf32>
}
