// Tests that spmd-propagate propagates lower priorities first and never
// overrides a written sharding.
// RUN: spmd-opt %s --spmd-propagate -split-input-file | FileCheck %s
// RUN: spmd-opt %s --spmd-propagate=strategy=basic -split-input-file | FileCheck %s --check-prefix=BASIC

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Two annotations want dim 0 of the sum. p0 is propagated first and wins;
// the p1 one cannot override it.
// CHECK-LABEL: func.func @priority
// CHECK: arith.addf {{.*}}#spmd.sharding_per_value<[<@mesh, [{"model"}]>]>
// BASIC-LABEL: func.func @priority
// BASIC: arith.addf {{.*}}#spmd.sharding_per_value<[<@mesh, [{"model"}]>]>
func.func @priority(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", ?}p1]>},
                    %b: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model", ?}p0]>}) -> tensor<8xf32> {
  %0 = arith.addf %a, %b : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Same priority, conflicting: basic keeps only what both agree on
// (nothing); aggressive takes the larger tensor's sharding.
// CHECK-LABEL: func.func @conflict
// CHECK: linalg.generic {{.*}}#spmd.sharding_per_value<[<@mesh, [{"model"}, {}]>]>
// BASIC-LABEL: func.func @conflict
// BASIC: linalg.generic {{.*}}#spmd.sharding_per_value<[<@mesh, [{}, {}]>]>
func.func @conflict(%big: tensor<8x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>},
                    %small: tensor<8x1xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> tensor<8x1024xf32> {
  %e = tensor.empty() : tensor<8x1024xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%big, %small : tensor<8x1024xf32>, tensor<8x1xf32>) outs(%e : tensor<8x1024xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x1024xf32>
  return %1 : tensor<8x1024xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Closed dimensions never change, even with a sharded neighbour; open ones
// are extended after what the user wrote.
// CHECK-LABEL: func.func @open_closed
// CHECK-SAME: %arg1: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}
// CHECK-SAME: %arg2: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", ?}, {"model", ?}]>}
func.func @open_closed(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>},
                       %b: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                       %c: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", ?}, {?}]>}) -> tensor<8x16xf32> {
  %0 = arith.addf %a, %b : tensor<8x16xf32>
  %1 = arith.addf %0, %c : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// `replicated` axes and partial axes are taken: propagation does not shard
// over them.
// CHECK-LABEL: func.func @taken_axes
// CHECK-SAME: %arg1: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"model", ?}], replicated={"data"}>}
func.func @taken_axes(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>},
                      %b: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {?}], replicated={"data"}>}) -> tensor<8x16xf32> {
  %0 = arith.addf %a, %b : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// An axis shards one factor of an op: x and the weight both want "data"
// (rows of x, columns of w); the larger tensor keeps it (gathering the
// 512-byte x rather than the 64 KiB weight).
// CHECK-LABEL: func.func @axis_once
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{}, {"data"}]>]>
func.func @axis_once(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                     %w: tensor<16x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"data"}]>}) -> tensor<8x1024xf32> {
  %e = tensor.empty() : tensor<8x1024xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x1024xf32>) outs(%e : tensor<8x1024xf32>) -> tensor<8x1024xf32>
  return %0 : tensor<8x1024xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// The same with x the larger: x keeps its rows split, the weight is
// gathered.
// CHECK-LABEL: func.func @axis_once_larger_input
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>
func.func @axis_once_larger_input(%x: tensor<1024x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                                  %w: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"data"}]>}) -> tensor<1024x8xf32> {
  %e = tensor.empty() : tensor<1024x8xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<1024x16xf32>, tensor<16x8xf32>) outs(%e : tensor<1024x8xf32>) -> tensor<1024x8xf32>
  return %0 : tensor<1024x8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Priorities choose otherwise: the weight's p0 columns beat the larger
// input's p1 rows.
// CHECK-LABEL: func.func @axis_once_priority
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{}, {"data"}]>]>
func.func @axis_once_priority(%x: tensor<1024x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}p1, {}]>},
                              %w: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"data"}p0]>}) -> tensor<1024x8xf32> {
  %e = tensor.empty() : tensor<1024x8xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<1024x16xf32>, tensor<16x8xf32>) outs(%e : tensor<1024x8xf32>) -> tensor<1024x8xf32>
  return %0 : tensor<1024x8xf32>
}
