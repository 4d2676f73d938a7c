// Tests that spmd-auto-shard does not split a reduction whose results reduce
// with different combiners, and that the partitioner computes its plan.
//
// An op whose results reduce with different combiners (a min and a sum)
// cannot leave them pending: the partitioner pads shared inputs with one
// identity only. Auto-sharding offers only what the partitioner does, so
// it does not split the reduction (it did, and the partitioner then
// computed the op another way than the plan was costed).
//
// RUN: spmd-opt %s --spmd-auto-shard | FileCheck %s
// RUN: spmd-opt %s --spmd-auto-shard | spmd-opt --spmd-pipeline 2>&1 | FileCheck %s --check-prefix=PART

spmd.mesh @mesh = <["y"=4]>

// CHECK-LABEL: func.func @min_and_sum
// CHECK: linalg.generic
// CHECK-NOT: partial
// CHECK: return
// PART-NOT: warning
// PART-NOT: factor_split
// PART: return
func.func @min_and_sum(%x: tensor<8x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>})
    -> (tensor<8xf32>, tensor<8xf32>) {
  %big = arith.constant 3.0e+38 : f32
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %fmin = linalg.fill ins(%big : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %fsum = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>, affine_map<(i, k) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x64xf32>) outs(%fmin, %fsum : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32):
    %mn = arith.minimumf %a, %m : f32
    %sm = arith.addf %a, %s : f32
    linalg.yield %mn, %sm : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}
