// Tests that spmd-partition computes an op by the factor split written on it
// (`spmd.factor_split`, as spmd-auto-shard writes its plan), even where the
// partitioner alone would choose another split giving the same layouts: a
// plan runs as it was costed (factor-split-errors.mlir: malformed ones;
// import/factor-split.mlir: splits import drops).
// RUN: spmd-opt %s -split-input-file --spmd-partition | FileCheck %s

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
func.func @contraction_split(%arg0: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, %arg1: tensor<64x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}) -> (tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"model"}]>]>} : tensor<16x32xf32>
  %1 = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"model"}]>]>} ins(%cst : f32) outs(%0 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %2 = linalg.matmul {spmd.factor_split = [[], [], ["model"]], spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"model"}]>]>} ins(%arg0, %arg1 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %2 : tensor<16x32xf32>
}

// -----

spmd.mesh @mesh = <["model"=2]>

// CHECK-LABEL: func.func @column_split
// CHECK-NOT: spmd.all_to_all
// CHECK: spmd.all_gather
// CHECK: linalg.matmul ins({{.*}} : tensor<16x64xf32>, tensor<64x16xf32>)
// CHECK-NOT: spmd.reduce_scatter
// CHECK: return
func.func @column_split(%arg0: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, %arg1: tensor<64x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}) -> (tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}) {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"model"}]>]>} : tensor<16x32xf32>
  %1 = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"model"}]>]>} ins(%cst : f32) outs(%0 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %2 = linalg.matmul {spmd.factor_split = [[], ["model"], []], spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"model"}]>]>} ins(%arg0, %arg1 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %2 : tensor<16x32xf32>
}
