// TOSA programs (as upstream's sharding tests write them) run: their ops
// are lowered to linalg, tensor and arith after partitioning. tosa.mul
// (whose shift operand keeps it from the elementwise trait) is split like
// its inputs (tosa-reductions.mlir has the reductions).
// RUN: spmd-run %s --check | FileCheck %s
// CHECK: devices=4
// CHECK: check: PASS
// RUN: spmd-opt %s --spmd-pipeline 2>&1 | FileCheck %s --check-prefix=LOCAL
// LOCAL: tosa.mul {{.*}} -> tensor<1x8x6xf32>
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @main(%x: tensor<2x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}, {}]>},
                %w: tensor<2x16x12xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"model"}]>},
                %b: tensor<1x1x12xf32>) -> tensor<2x8x12xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %x, %w, %zp, %zp : (tensor<2x8x16xf32>, tensor<2x16x12xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x12xf32>
  %a = tosa.add %m, %b : (tensor<2x8x12xf32>, tensor<1x1x12xf32>) -> tensor<2x8x12xf32>
  %s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %sq = tosa.mul %a, %a, %s : (tensor<2x8x12xf32>, tensor<2x8x12xf32>, tensor<1xi8>) -> tensor<2x8x12xf32>
  %c = tosa.clamp %sq {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<2x8x12xf32>) -> tensor<2x8x12xf32>
  %e = tosa.exp %c : (tensor<2x8x12xf32>) -> tensor<2x8x12xf32>
  %r = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x8x12xf32>) -> tensor<2x8x1xf32>
  %d = tosa.sub %e, %r : (tensor<2x8x12xf32>, tensor<2x8x1xf32>) -> tensor<2x8x12xf32>
  return %d : tensor<2x8x12xf32>
}
