// Tests that spmd-propagate carries shardings through slices, pads and
// concatenations (cut dimensions only with the aggressive strategy).
// RUN: spmd-opt %s --spmd-propagate -split-input-file | FileCheck %s
// RUN: spmd-opt %s --spmd-propagate=strategy=basic -split-input-file | FileCheck %s --check-prefix=BASIC

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Dimensions a slice keeps whole are parallel; a cut one is a permutation
// factor (aggressive carries it, basic does not).
// CHECK-LABEL: func.func @extract_slice
// CHECK: tensor.extract_slice {{.*}}#spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>
// BASIC-LABEL: func.func @extract_slice
// BASIC: tensor.extract_slice {{.*}}#spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>
func.func @extract_slice(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x8xf32> {
  %0 = tensor.extract_slice %a[0, 4] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// A rank-reducing slice drops the unit dimension.
// CHECK-LABEL: func.func @extract_slice_rank_reducing
// CHECK: tensor.extract_slice {{.*}}#spmd.sharding_per_value<[<@mesh, [{"y"}]>]>
func.func @extract_slice_rank_reducing(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<16xf32> {
  %0 = tensor.extract_slice %a[3, 0] [1, 16] [1, 1] : tensor<8x16xf32> to tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// insert_slice: destination and result agree; the source's whole
// dimensions follow them.
// CHECK-LABEL: func.func @insert_slice
// CHECK-SAME: %{{.*}}: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}
// CHECK: tensor.insert_slice {{.*}}#spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>
func.func @insert_slice(%d: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
                        %s: tensor<8x4xf32>) -> tensor<8x16xf32> {
  %0 = tensor.insert_slice %s into %d[0, 4] [8, 4] [1, 1] : tensor<8x4xf32> into tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// pad: the unpadded dimension is parallel, the padded one a permutation.
// CHECK-LABEL: func.func @pad
// CHECK: tensor.pad
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>}
// BASIC-LABEL: func.func @pad
// BASIC: tensor.pad
// BASIC: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}
func.func @pad(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x20xf32> {
  %zero = arith.constant 0.0 : f32
  %0 = tensor.pad %a low[0, 2] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<8x16xf32> to tensor<8x20xf32>
  return %0 : tensor<8x20xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// concat: the other dimensions are shared by every operand.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: %{{.*}}: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}
// CHECK: tensor.concat {{.*}}#spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>
func.func @concat(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                  %b: tensor<8x4xf32>) -> tensor<8x20xf32> {
  %0 = tensor.concat dim(1) %a, %b : (tensor<8x16xf32>, tensor<8x4xf32>) -> tensor<8x20xf32>
  return %0 : tensor<8x20xf32>
}

// -----

spmd.mesh @mesh = <["x"=2, "y"=4]>

// Reading single elements needs the whole tensor; inserting keeps it.
// CHECK-LABEL: func.func @elements
// CHECK: tensor.insert {{.*}}#spmd.sharding_per_value<[<@mesh, [{"x"}]>]>
func.func @elements(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %i: index) -> tensor<8xf32> {
  %v = tensor.extract %a[%i] : tensor<8xf32>
  %0 = tensor.insert %v into %a[%i] : tensor<8xf32>
  return %0 : tensor<8xf32>
}
