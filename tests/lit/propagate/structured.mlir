// Tests that spmd-propagate carries shardings through structured ops by their
// factors, contracted ones not reaching the result.
// RUN: spmd-opt %s --spmd-propagate -split-input-file | FileCheck %s
// RUN: spmd-opt %s --spmd-propagate=strategy=basic -split-input-file | FileCheck %s --check-prefix=BASIC

spmd.mesh @mesh = <["data"=2, "model"=4]>

// matmul: rows follow the lhs, columns the rhs; the contracted dimension
// (sharded on both operands) does not reach the result.
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>
func.func @matmul(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>},
                  %b: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> tensor<8x32xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Backward through a matmul: the result's column sharding reaches the
// weight; the activation gets the row sharding.
// CHECK-LABEL: func.func @matmul_backward
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}
// CHECK-SAME: %{{.*}}: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}
func.func @matmul_backward(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>)
    -> (tensor<8x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>}) {
  %e = tensor.empty() : tensor<8x32xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// batch_matmul: the batch dimension is shared by all three.
// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME: %{{.*}}: tensor<4x16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}, {}]>}
// CHECK: linalg.batch_matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}, {}]>]>
func.func @batch_matmul(%a: tensor<4x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}, {}]>},
                        %b: tensor<4x16x32xf32>) -> tensor<4x8x32xf32> {
  %e = tensor.empty() : tensor<4x8x32xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf32>, tensor<4x16x32xf32>) outs(%e : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  return %0 : tensor<4x8x32xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// transpose permutes the dimension shardings.
// CHECK-LABEL: func.func @transpose
// CHECK: linalg.transpose {{.*}}#spmd.sharding_per_value<[<@mesh, [{"model"}, {"data"}]>]>
func.func @transpose(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>}) -> tensor<16x8xf32> {
  %e = tensor.empty() : tensor<16x8xf32>
  %0 = linalg.transpose ins(%a : tensor<8x16xf32>) outs(%e : tensor<16x8xf32>) permutation = [1, 0]
  return %0 : tensor<16x8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// broadcast adds a dimension, which stays free; reduce drops one.
// CHECK-LABEL: func.func @broadcast_reduce
// CHECK: linalg.broadcast {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>
// CHECK: linalg.reduce {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}]>]>
func.func @broadcast_reduce(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}]>}) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %0 = linalg.broadcast ins(%a : tensor<8xf32>) outs(%e : tensor<8x16xf32>) dimensions = [1]
  %z = tensor.empty() : tensor<8xf32>
  %1 = linalg.reduce ins(%0 : tensor<8x16xf32>) outs(%z : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %1 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// A reduction over a sharded dimension: the result is not sharded there.
// CHECK-LABEL: func.func @reduce_sharded_dim
// CHECK: linalg.reduce {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}]>]>
func.func @reduce_sharded_dim(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>}) -> tensor<8xf32> {
  %z = tensor.empty() : tensor<8xf32>
  %1 = linalg.reduce ins(%a : tensor<8x16xf32>) outs(%z : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %1 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Convolution (NHWC): batch and output channels are parallel; the spatial
// dimensions are permutation factors (sharding them needs halos), so only
// the aggressive strategy carries a spatial sharding through.
// CHECK-LABEL: func.func @conv
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}, {}, {}]>]>
// BASIC-LABEL: func.func @conv
// BASIC: linalg.conv_2d_nhwc_hwcf {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}, {}, {}]>]>
func.func @conv(%in: tensor<2x18x18x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}, {}, {}]>},
                %f: tensor<3x3x3x8xf32>) -> tensor<2x16x16x8xf32> {
  %e = tensor.empty() : tensor<2x16x16x8xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %f : tensor<2x18x18x3xf32>, tensor<3x3x3x8xf32>) outs(%e : tensor<2x16x16x8xf32>) -> tensor<2x16x16x8xf32>
  return %0 : tensor<2x16x16x8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// The filter's output channels shard the result's channels.
// CHECK-LABEL: func.func @conv_channels
// CHECK: linalg.conv_2d_nchw_fchw {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}, {}, {}]>]>
func.func @conv_channels(%in: tensor<2x3x18x18xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}, {}, {}]>},
                         %f: tensor<8x3x3x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}, {}, {}]>}) -> tensor<2x8x16x16xf32> {
  %e = tensor.empty() : tensor<2x8x16x16xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %f : tensor<2x3x18x18xf32>, tensor<8x3x3x3xf32>) outs(%e : tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
  return %0 : tensor<2x8x16x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Max pooling with a window tensor.
// CHECK-LABEL: func.func @pooling
// CHECK: linalg.pooling_nchw_max {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}, {}, {}]>]>
func.func @pooling(%in: tensor<2x8x16x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}, {}, {}]>}) -> tensor<2x8x8x8xf32> {
  %w = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x8x8x8xf32>
  %0 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%in, %w : tensor<2x8x16x16xf32>, tensor<2x2xf32>) outs(%e : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  return %0 : tensor<2x8x8x8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// A generic contraction written out: C[b, i, k] = sum_j A[b, i, j] B[j, k].
// CHECK-LABEL: func.func @generic_contraction
// CHECK: linalg.generic {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}, {"model"}]>]>
func.func @generic_contraction(%a: tensor<2x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}, {}]>},
                               %b: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}) -> tensor<2x8x32xf32> {
  %e = tensor.empty() : tensor<2x8x32xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(b, i, j, k) -> (b, i, j)>,
                                        affine_map<(b, i, j, k) -> (j, k)>,
                                        affine_map<(b, i, j, k) -> (b, i, k)>],
                       iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a, %b : tensor<2x8x16xf32>, tensor<16x32xf32>) outs(%e : tensor<2x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Two matmuls share one zero-filled init: it is cheap to remake, so it
// does not tie their results together.
// CHECK-LABEL: func.func @shared_init
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{}, {"model"}]>]>
func.func @shared_init(%a: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                       %b: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                       %w: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.matmul ins(%w, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0, %1 : tensor<8x8xf32>, tensor<8x8xf32>
}
