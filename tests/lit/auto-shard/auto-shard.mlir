// Tests that spmd-auto-shard chooses what the user left open and keeps what
// was written.
//
// RUN: spmd-opt %s -split-input-file --spmd-auto-shard | FileCheck %s
// RUN: spmd-opt %s -split-input-file --spmd-auto-shard=memory-budget=17170432 | FileCheck %s --check-prefix=BUDGET
// RUN: spmd-opt %s -split-input-file --spmd-auto-shard=solver=enumerate | FileCheck %s --check-prefix=ENUM

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Megatron MLP with only the input annotated. Without a budget every
// device keeps the weights and computes an eighth of the rows: nothing
// moves. With a budget half the weights below that plan, the weights are
// split and one reduce_scatter of the second matmul's partial sums remains.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: %arg0: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}
// CHECK-SAME: %arg1: tensor<1024x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}
// CHECK-SAME: %arg2: tensor<4096x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}
// CHECK-SAME: -> (tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", "model"}, {}]>})
// CHECK: linalg.matmul {spmd.factor_split = {{\[\["data", "model"\], \[\], \[\]\]}}, spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data", "model"}, {}]>]>}
// CHECK: linalg.generic
// CHECK-SAME: spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data", "model"}, {}]>]>
// CHECK: linalg.matmul {spmd.factor_split = {{\[\["data", "model"\], \[\], \[\]\]}}, spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data", "model"}, {}]>]>}
// BUDGET-LABEL: func.func @mlp
// BUDGET-NOT: [{}, {}]>}
// BUDGET: linalg.matmul {spmd.factor_split = {{\[\["data"\], \["model"\], \[\]\]}}
// BUDGET: linalg.matmul {spmd.factor_split = {{\[\["data"\], \[\], \["model"\]\]}}
// BUDGET-SAME: partial=
// BUDGET: return
// ENUM-LABEL: func.func @mlp
// ENUM-SAME: %arg1: tensor<1024x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}
func.func @mlp(%x: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
               %w1: tensor<1024x4096xf32>, %w2: tensor<4096x1024xf32>) -> tensor<64x1024xf32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x4096xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<64x1024xf32>, tensor<1024x4096xf32>) outs(%f1 : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<64x4096xf32>) outs(%e1 : tensor<64x4096xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<64x4096xf32>
  %e2 = tensor.empty() : tensor<64x1024xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<64x4096xf32>, tensor<4096x1024xf32>) outs(%f2 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Written shardings stay: the weight's, the result's and the constraint's;
// the open dimension of %b keeps "model" first and may gain "data" after.
// CHECK-LABEL: func.func @kept
// CHECK-SAME: %arg1: tensor<256x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}
// CHECK-SAME: %arg2: tensor<512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"{{(", "data")?}}}]>}
// CHECK-SAME: -> (tensor<128x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>})
// CHECK: spmd.sharding_constraint %{{.*}} <@mesh, [{}, {"model"}]>
func.func @kept(%x: tensor<128x256xf32>,
                %w: tensor<256x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                %b: tensor<512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model", ?}]>})
    -> (tensor<128x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x512xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x512xf32>) -> tensor<128x512xf32>
  %h = linalg.matmul ins(%x, %w : tensor<128x256xf32>, tensor<256x512xf32>) outs(%f : tensor<128x512xf32>) -> tensor<128x512xf32>
  %c = spmd.sharding_constraint %h <@mesh, [{}, {"model"}]> : tensor<128x512xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%c, %b : tensor<128x512xf32>, tensor<512xf32>) outs(%e : tensor<128x512xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %s = arith.addf %a, %v : f32
    linalg.yield %s : f32
  } -> tensor<128x512xf32>
  return %y : tensor<128x512xf32>
}

// -----

// Nothing annotated: the module's only mesh is used, and a loop (no rule)
// is left to propagation.
spmd.mesh @only = <["x"=2]>

// CHECK-LABEL: func.func @loop
// CHECK-SAME: %arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@only, [{{.*}}]>}
// CHECK: scf.for
// CHECK-NOT: spmd.sharding
// CHECK: scf.yield
func.func @loop(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> tensor<8x16xf32> {
    %e = tensor.empty() : tensor<8x16xf32>
    %n = linalg.add ins(%acc, %acc : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
    scf.yield %n : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}
