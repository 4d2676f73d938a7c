// Tests that spmd-propagate carries shardings forward and backward through
// elementwise ops.
// RUN: spmd-opt %s --spmd-propagate -split-input-file | FileCheck %s

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Forward through arith and math ops on tensors.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>})
func.func @forward(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>}) -> tensor<8x16xf32> {
  // CHECK: math.exp {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>
  %0 = math.exp %x : tensor<8x16xf32>
  // CHECK: arith.addf {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>
  %1 = arith.addf %0, %x : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Backward: the result's sharding reaches the argument and the constant.
// CHECK-LABEL: func.func @backward
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}
func.func @backward(%x: tensor<8x16xf32>) -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}) {
  // CHECK: arith.constant {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"model"}]>]>} dense<1.0
  %c = arith.constant dense<1.0> : tensor<8x16xf32>
  %0 = arith.mulf %x, %c : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// A bias broadcast along dim 0 by a `(0, d1)` indexing map: the unit dim
// takes no sharding, the other follows.
// CHECK-LABEL: func.func @bias_broadcast
func.func @bias_broadcast(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>},
                          %b: tensor<1x16xf32>) -> tensor<8x16xf32> {
  // CHECK-SAME: %{{.*}}: tensor<1x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}
  %e = tensor.empty() : tensor<8x16xf32>
  // CHECK: linalg.generic
  // CHECK-SAME: #spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<8x16xf32>, tensor<1x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// tosa broadcasting: the [1, 16] operand keeps dim 0 unsharded.
// CHECK-LABEL: func.func @tosa_broadcast
// CHECK-SAME: %{{.*}}: tensor<1x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}
func.func @tosa_broadcast(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>},
                          %y: tensor<1x16xf32>) -> tensor<8x16xf32> {
  // CHECK: tosa.add {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>
  %0 = tosa.add %x, %y : (tensor<8x16xf32>, tensor<1x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Scalars are rank 0 and stay unannotated when no tensor is produced.
// CHECK-LABEL: func.func @scalars
func.func @scalars(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}]>}, %s: f32) -> tensor<8xf32> {
  // CHECK: arith.addf %{{.*}}, %{{.*}} : f32
  %t = arith.addf %s, %s : f32
  // CHECK: linalg.fill {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}]>]>
  %0 = linalg.fill ins(%t : f32) outs(%x : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
