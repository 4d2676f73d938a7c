// Tests that spmd-propagate completes the classic layouts, annotated as users
// do (inputs, weights, a few intermediate values).
// RUN: spmd-opt %s --spmd-propagate -split-input-file | FileCheck %s

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Data parallel: only the batch is annotated; every activation is split
// over "data" and every weight stays replicated.
// CHECK-LABEL: func.func @data_parallel
// CHECK-SAME: %arg1: tensor<1024x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>
// CHECK: linalg.generic {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>
func.func @data_parallel(%x: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                         %w1: tensor<1024x1024xf32>, %w2: tensor<1024x1024xf32>) -> tensor<64x1024xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<64x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<64x1024xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<64x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// FSDP: the weight is stored split over the batch axis. The activations
// keep the batch split (the weight is gathered for the matmul).
// CHECK-LABEL: func.func @fsdp
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>
func.func @fsdp(%x: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                %w: tensor<1024x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> tensor<64x4096xf32> {
  %e = tensor.empty() : tensor<64x4096xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x1024xf32>, tensor<1024x4096xf32>) outs(%e : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  return %y : tensor<64x4096xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Megatron MLP: column-split then row-split weights. The hidden activation
// is split over both axes; the output only over "data" (the row-split
// contraction leaves a partial sum over "model" for the partitioner).
// CHECK-LABEL: func.func @megatron_mlp
// CHECK-SAME: -> (tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>})
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>
// CHECK: linalg.generic {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>
func.func @megatron_mlp(%x: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                        %w1: tensor<1024x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                        %w2: tensor<4096x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> tensor<64x1024xf32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x4096xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<64x1024xf32>, tensor<1024x4096xf32>) outs(%e1 : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<64x4096xf32>) outs(%e1 : tensor<64x4096xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<64x4096xf32>
  %e2 = tensor.empty() : tensor<64x1024xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<64x4096xf32>, tensor<4096x1024xf32>) outs(%e2 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Attention with heads split over "model": the projections, scores,
// softmax-style normalisation and context are all split by batch and head
// with no reshard; the output projection (row-split) contracts over heads.
// CHECK-LABEL: func.func @attention
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>
// CHECK: tensor.expand_shape {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}, {"model"}, {}]>]>
// CHECK: linalg.generic {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}, {}, {}]>]>
// CHECK: linalg.generic {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}, {}, {}]>]>
// CHECK: linalg.generic {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}, {"model"}, {}]>]>
// CHECK: tensor.collapse_shape {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>
func.func @attention(%x: tensor<16x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                     %wqkv: tensor<512x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                     %wo: tensor<512x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> tensor<16x512xf32> {
  // One sequence of 16 tokens, 8 heads of 64 (q = k = v for brevity).
  %e = tensor.empty() : tensor<16x512xf32>
  %q = linalg.matmul ins(%x, %wqkv : tensor<16x512xf32>, tensor<512x512xf32>) outs(%e : tensor<16x512xf32>) -> tensor<16x512xf32>
  %q4 = tensor.expand_shape %q [[0, 1], [2, 3]] output_shape [2, 8, 8, 64] : tensor<16x512xf32> into tensor<2x8x8x64xf32>
  %es = tensor.empty() : tensor<2x8x8x8xf32>
  // scores[b, h, s, t] = sum_d q[b, s, h, d] * k[b, t, h, d]
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, s, t, d) -> (b, s, h, d)>,
                                        affine_map<(b, h, s, t, d) -> (b, t, h, d)>,
                                        affine_map<(b, h, s, t, d) -> (b, h, s, t)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q4, %q4 : tensor<2x8x8x64xf32>, tensor<2x8x8x64xf32>) outs(%es : tensor<2x8x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8x8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, h, s, t) -> (b, h, s, t)>, affine_map<(b, h, s, t) -> (b, h, s, t)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x8x8x8xf32>) outs(%es : tensor<2x8x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ex = math.exp %a : f32
    linalg.yield %ex : f32
  } -> tensor<2x8x8x8xf32>
  // context[b, s, h, d] = sum_t p[b, h, s, t] * v[b, t, h, d]
  %ec = tensor.empty() : tensor<2x8x8x64xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(b, s, h, d, t) -> (b, h, s, t)>,
                                        affine_map<(b, s, h, d, t) -> (b, t, h, d)>,
                                        affine_map<(b, s, h, d, t) -> (b, s, h, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %q4 : tensor<2x8x8x8xf32>, tensor<2x8x8x64xf32>) outs(%ec : tensor<2x8x8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x8x8x64xf32>
  %c2 = tensor.collapse_shape %c [[0, 1], [2, 3]] : tensor<2x8x8x64xf32> into tensor<16x512xf32>
  %y = linalg.matmul ins(%c2, %wo : tensor<16x512xf32>, tensor<512x512xf32>) outs(%e : tensor<16x512xf32>) -> tensor<16x512xf32>
  return %y : tensor<16x512xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Sequence parallel: outside the tensor-parallel block the tokens are split
// over both axes. The user marks the gathered input of the column-split
// matmul (as Megatron does); the norm-like op before it stays split over
// both axes, the matmul output is split by data and model.
// CHECK-LABEL: func.func @sequence_parallel
// CHECK: math.tanh {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data", "model"}, {}]>]>
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>
func.func @sequence_parallel(%x: tensor<8192x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", "model"}, {}]>},
                             %w: tensor<1024x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}) -> tensor<8192x4096xf32> {
  %n = math.tanh %x : tensor<8192x1024xf32>
  %g = spmd.sharding_constraint %n <@mesh, [{"data"}, {}]> : tensor<8192x1024xf32>
  %e = tensor.empty() : tensor<8192x4096xf32>
  %y = linalg.matmul ins(%g, %w : tensor<8192x1024xf32>, tensor<1024x4096xf32>) outs(%e : tensor<8192x4096xf32>) -> tensor<8192x4096xf32>
  return %y : tensor<8192x4096xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// 2-D: weights split over both axes (stored like FSDP over "data",
// tensor-parallel over "model"); activations are split by batch and by the
// model-split features.
// CHECK-LABEL: func.func @two_d
// CHECK: linalg.matmul {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>
// CHECK: math.tanh {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {"model"}]>]>
func.func @two_d(%x: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                 %w: tensor<1024x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>}) -> tensor<64x4096xf32> {
  %e = tensor.empty() : tensor<64x4096xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x1024xf32>, tensor<1024x4096xf32>) outs(%e : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %t = math.tanh %y : tensor<64x4096xf32>
  return %t : tensor<64x4096xf32>
}
