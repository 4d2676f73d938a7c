// Tests that spmd-propagate carries shardings through reshapes.
// RUN: spmd-opt %s --spmd-propagate -split-input-file | FileCheck %s

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=2]>

// [8, 16] -> [128] sharded on the major dimension keeps its sharding.
// CHECK-LABEL: func.func @collapse_major
// CHECK: tensor.collapse_shape {{.*}}#spmd.sharding_per_value<[<@mesh, [{"x"}]>]>
func.func @collapse_major(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<128xf32> {
  %0 = tensor.collapse_shape %a [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
  return %0 : tensor<128xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=2]>

// Only a fully sharded major dimension lets the minor one follow:
// x*y = 8 covers dim 0, so z on dim 1 is kept too.
// CHECK-LABEL: func.func @collapse_full_major
// CHECK: tensor.collapse_shape {{.*}}#spmd.sharding_per_value<[<@mesh, [{"x", "y", "z"}]>]>
func.func @collapse_full_major(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {"z"}]>}) -> tensor<128xf32> {
  %0 = tensor.collapse_shape %a [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
  return %0 : tensor<128xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=2]>

// A sharded minor dimension under an unsharded major one cannot be
// expressed on the collapsed dimension: it stays unsharded (a reshard).
// CHECK-LABEL: func.func @collapse_minor
// CHECK: tensor.collapse_shape {{.*}}#spmd.sharding_per_value<[<@mesh, [{}]>]>
func.func @collapse_minor(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<128xf32> {
  %0 = tensor.collapse_shape %a [[0, 1]] : tensor<8x16xf32> into tensor<128xf32>
  return %0 : tensor<128xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=2]>

// Splitting a sharded dimension: axes go to the major part while they
// divide it (x*y = 8), the rest to the next (z).
// CHECK-LABEL: func.func @expand
// CHECK: tensor.expand_shape {{.*}}#spmd.sharding_per_value<[<@mesh, [{"x", "y"}, {"z"}]>]>
func.func @expand(%a: tensor<128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y", "z"}]>}) -> tensor<8x16xf32> {
  %0 = tensor.expand_shape %a [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=2]>

// Fallback without sub-axes: y (4) does not divide the major part (2), so
// nothing is propagated through this split.
// CHECK-LABEL: func.func @expand_axis_too_large
// CHECK: tensor.expand_shape {{.*}}#spmd.sharding_per_value<[<@mesh, [{}, {}]>]>
func.func @expand_axis_too_large(%a: tensor<128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) -> tensor<2x64xf32> {
  %0 = tensor.expand_shape %a [[0, 1]] output_shape [2, 64] : tensor<128xf32> into tensor<2x64xf32>
  return %0 : tensor<2x64xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=2]>

// Backward through a reshape, and unit dimensions.
// CHECK-LABEL: func.func @reshape_backward
// CHECK-SAME: %{{.*}}: tensor<1x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {}]>}
func.func @reshape_backward(%a: tensor<1x8x16xf32>) -> (tensor<128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) {
  %0 = tensor.collapse_shape %a [[0, 1, 2]] : tensor<1x8x16xf32> into tensor<128xf32>
  return %0 : tensor<128xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4, "z"=2]>

// tensor.reshape with a shape operand; 6x10 -> 4x15 has no common factors
// and is replicated.
// CHECK-LABEL: func.func @reshape
// CHECK: tensor.reshape {{.*}}#spmd.sharding_per_value<[<@mesh, [{"x"}, {}, {}]>]>
// CHECK: tensor.reshape {{.*}}#spmd.sharding_per_value<[<@mesh, [{}, {}]>]>
func.func @reshape(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                   %s: tensor<3xi64>, %b: tensor<6x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                   %t: tensor<2xi64>) -> (tensor<2x4x16xf32>, tensor<4x15xf32>) {
  %0 = tensor.reshape %a(%s) : (tensor<8x16xf32>, tensor<3xi64>) -> tensor<2x4x16xf32>
  %1 = tensor.reshape %b(%t) : (tensor<6x10xf32>, tensor<2xi64>) -> tensor<4x15xf32>
  return %0, %1 : tensor<2x4x16xf32>, tensor<4x15xf32>
}
