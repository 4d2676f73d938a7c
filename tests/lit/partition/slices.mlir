// Tests that spmd-partition computes slices and pads of a split dimension as
// windows of the shards: borders come from neighbours by
// collective_permute, and the dimension is gathered only where a window
// reaches past them.
// RUN: spmd-opt %s -split-input-file --spmd-partition | FileCheck %s

spmd.mesh @mesh = <["x"=4]>

// A slice of a split dimension reads a window of the shards: rows 2..13 of
// 16 over 4 devices are 3 per device, starting at 3i + 2; each device's
// window reaches one row into a neighbour at most. One row comes from each
// side, nothing is gathered.
// CHECK-LABEL: func.func @rows
// CHECK-SAME: %[[A:.*]]: tensor<4x8xf32>
// CHECK-NOT: spmd.all_gather
// CHECK: spmd.collective_permute %{{.*}} pairs = [0 -> 1, 1 -> 2, 2 -> 3] : tensor<1x8xf32>
// CHECK: spmd.collective_permute %{{.*}} pairs = [1 -> 0, 2 -> 1, 3 -> 2] : tensor<1x8xf32>
// CHECK: tensor.concat dim(0) {{.*}} -> tensor<6x8xf32>
// CHECK: tensor.extract_slice {{.*}} : tensor<6x8xf32> to tensor<3x8xf32>
// CHECK-NOT: spmd.all_gather
// CHECK: return {{.*}} : tensor<3x8xf32>
func.func @rows(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<12x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %extracted_slice = tensor.extract_slice %arg0[2, 0] [12, 8] [1, 1] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<16x8xf32> to tensor<12x8xf32>
  return %extracted_slice : tensor<12x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>

// Every second row from row 1: each device's rows are already its own
// (its window is rows 1..5 of its shard).
// CHECK-LABEL: func.func @strided
// CHECK-NOT: spmd.{{(all_[a-z]+|collective_permute|reduce_scatter)}}
// CHECK: %[[W:.*]] = tensor.extract_slice %{{.*}}[1, 0] [5, 10] [1, 1] : tensor<6x10xf32> to tensor<5x10xf32>
// CHECK: tensor.extract_slice %[[W]][0, 0] [3, 10] [2, 1] : tensor<5x10xf32> to tensor<3x10xf32>
// CHECK-NOT: spmd.{{(all_[a-z]+|collective_permute|reduce_scatter)}}
// CHECK: return
func.func @strided(%arg0: tensor<12x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<5x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %extracted_slice = tensor.extract_slice %arg0[1, 0] [5, 10] [2, 1] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<12x10xf32> to tensor<5x10xf32>
  return %extracted_slice : tensor<5x10xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

// Half of a split dimension lands on half the devices: a window would
// reach past the neighbours, so the dimension is gathered first.
// CHECK-LABEL: func.func @far
// CHECK: spmd.all_gather
// CHECK: tensor.extract_slice
func.func @far(%arg0: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %extracted_slice = tensor.extract_slice %arg0[8, 0] [8, 8] [1, 1] {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<16x8xf32> to tensor<8x8xf32>
  return %extracted_slice : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

// A pad of a split dimension is a window too: 14 rows padded to 17 over 4
// devices are 5 result rows per device, reading rows 5i - 1 .. 5i + 3 of
// the input; the border (and the shards' padding) is set to the padding
// value by position; the unsplit dimension is padded locally.
// CHECK-LABEL: func.func @pad_rows
// CHECK-NOT: spmd.all_gather
// CHECK: spmd.collective_permute {{.*}} : tensor<1x8xf32>
// CHECK: spmd.collective_permute {{.*}} : tensor<3x8xf32>
// CHECK: tensor.extract_slice {{.*}} : tensor<8x8xf32> to tensor<5x8xf32>
// CHECK: linalg.generic
// CHECK:   arith.select
// CHECK: tensor.pad {{.*}} low[0, 0] high[0, 1]
// CHECK: tensor<5x8xf32> to tensor<5x9xf32>
// CHECK-NOT: spmd.all_gather
func.func @pad_rows(%arg0: tensor<14x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<17x9xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %cst = arith.constant 5.000000e-01 : f32
  %padded = tensor.pad %arg0 low[1, 0] high[2, 1] {
  ^bb0(%arg1: index, %arg2: index):
    tensor.yield %cst : f32
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<14x8xf32> to tensor<17x9xf32>
  return %padded : tensor<17x9xf32>
}
