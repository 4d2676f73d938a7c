// A factor split written on an op (`spmd.factor_split`, as spmd-auto-shard
// writes its plan) is how spmd-partition computes it, even where the
// partitioner alone would choose another split giving the same layouts:
// a plan runs as it was costed (factor-split-errors.mlir: malformed ones).
//
// RUN: spmd-opt %s -split-input-file --spmd-import --spmd-propagate --spmd-partition | FileCheck %s

spmd.mesh @mesh = <["model"=2]>

// Both ways give the annotated result: split the contraction (the weight
// moves to rows, the partial sums are reduce-scattered) or split the
// columns (the input is gathered).
// CHECK-LABEL: func.func @contraction_split
// CHECK-NOT: spmd.all_gather
// CHECK: spmd.all_to_all
// CHECK: linalg.matmul ins({{.*}} : tensor<16x32xf32>, tensor<32x32xf32>)
// CHECK-NOT: factor_split
// CHECK: spmd.reduce_scatter
func.func @contraction_split(
    %x: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
    %w: tensor<64x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>})
    -> (tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %m = linalg.matmul {spmd.factor_split = [[], [], ["model"]]}
      ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["model"=2]>

// CHECK-LABEL: func.func @column_split
// CHECK-NOT: spmd.all_to_all
// CHECK: spmd.all_gather
// CHECK: linalg.matmul ins({{.*}} : tensor<16x64xf32>, tensor<64x16xf32>)
// CHECK-NOT: spmd.reduce_scatter
// CHECK: return
func.func @column_split(
    %x: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
    %w: tensor<64x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>})
    -> (tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %m = linalg.matmul {spmd.factor_split = [[], ["model"], []]}
      ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %m : tensor<16x32xf32>
}

// -----

// A split written for an op before import folded its constant offsets
// belongs to the op's former rule (4 factors, now 2): import drops it.
// CHECK-LABEL: func.func @folded_after_planning
// CHECK: tensor.insert_slice
// CHECK-NOT: factor_split
// CHECK: return
spmd.mesh @mesh = <["y"=2]>
func.func @folded_after_planning(%a: tensor<4x5xi1> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>},
                                 %b: tensor<4x4xi1> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>})
    -> (tensor<4x5xi1> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %c0 = arith.constant 0 : index
  %r = tensor.insert_slice %b into %a[%c0, 0] [4, 4] [1, 1] {spmd.factor_split = [[], [], [], []]}
      : tensor<4x4xi1> into tensor<4x5xi1>
  return %r : tensor<4x5xi1>
}
