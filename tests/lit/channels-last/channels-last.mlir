// Tests that spmd-channels-last computes f32 NCHW convolutions, and the
// image ops connected to them, in NHWC, transposing only what enters and
// leaves the region.
// RUN: spmd-opt --spmd-channels-last --split-input-file %s | FileCheck %s

// A layer as torch-mlir writes it: pad, convolution, per-channel batch norm
// and ReLU, max pooling padded with -inf. The image is transposed once on
// entry, the result once on exit; the filter constant is rearranged, the
// per-channel operand read at the new channel loop (d3), the pads' widths
// moved to the NHWC dimensions.
// CHECK: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @layer
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x9x8xf32>, %[[S:.*]]: tensor<4xf32>)
// CHECK: %[[IN:.*]] = linalg.transpose ins(%[[X]] : tensor<1x3x9x8xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK: %[[PAD:.*]] = tensor.pad %[[IN]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<3x3x3x4xf32>
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}}strides = dense<2>{{.*}} ins(%[[PAD]], %[[W]] : tensor<1x11x10x3xf32>, tensor<3x3x3x4xf32>)
// CHECK: %[[BN:.*]] = linalg.generic {indexing_maps = [#[[ID:.*]], #[[CH]], #[[ID]]]{{.*}} ins(%[[C]], %[[S]] : tensor<1x5x4x4xf32>, tensor<4xf32>)
// CHECK: tensor.pad %[[BN]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: yield %cst_0
// CHECK: %[[POOL:.*]] = linalg.pooling_nhwc_max {{.*}} -> tensor<1x3x2x4xf32>
// CHECK: %[[OUT:.*]] = linalg.transpose ins(%[[POOL]] : tensor<1x3x2x4xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK-NOT: linalg.transpose
// CHECK-NOT: nchw
// CHECK: return %[[OUT]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @layer(%x: tensor<1x3x9x8xf32>, %s: tensor<4xf32>) -> tensor<1x4x3x2xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %w = arith.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]], [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]], [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]], [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : tensor<4x3x3x3xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x3x9x8xf32> to tensor<1x3x11x10xf32>
  %e = tensor.empty() : tensor<1x4x5x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x5x4xf32>) -> tensor<1x4x5x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%p, %w : tensor<1x3x11x10xf32>, tensor<4x3x3x3xf32>) outs(%f : tensor<1x4x5x4xf32>) -> tensor<1x4x5x4xf32>
  %bn = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %s : tensor<1x4x5x4xf32>, tensor<4xf32>) outs(%e : tensor<1x4x5x4xf32>) {
  ^bb0(%in: f32, %sc: f32, %out: f32):
    %m = arith.mulf %in, %sc : f32
    %r = arith.maximumf %m, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x4x5x4xf32>
  %mp = tensor.pad %bn low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %cc: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x4x5x4xf32> to tensor<1x4x7x6xf32>
  %e2 = tensor.empty() : tensor<1x4x3x2xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<1x4x3x2xf32>) -> tensor<1x4x3x2xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%mp, %win : tensor<1x4x7x6xf32>, tensor<3x3xf32>) outs(%f2 : tensor<1x4x3x2xf32>) -> tensor<1x4x3x2xf32>
  return %pool : tensor<1x4x3x2xf32>
}

// -----

// The residual add reads the convolution's image, the argument image the
// convolution read (transposed once already) and another argument image,
// which keeps its NCHW layout and is read through the permuted map; an
// image read both inside the region and by the return is transposed back
// once; a filter that is an argument is transposed when the program runs.
// CHECK: #[[NCHW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
// CHECK-LABEL: func.func @residual
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x5x5xf32>, %[[W:.*]]: tensor<4x4x1x1xf32>, %[[SKIP:.*]]: tensor<2x4x5x5xf32>)
// CHECK: %[[IN:.*]] = linalg.transpose ins(%[[X]] : {{.*}} permutation = [0, 2, 3, 1]
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[W]] : {{.*}} permutation = [2, 3, 1, 0]
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[IN]], %[[WT]]
// CHECK: %[[BACK:.*]] = linalg.transpose ins(%[[C]] : {{.*}} permutation = [0, 3, 1, 2]
// CHECK: %[[ADD:.*]] = linalg.generic {indexing_maps = [#[[ID:.*]], #[[ID]], #[[NCHW]], #[[ID]]]{{.*}} ins(%[[C]], %[[IN]], %[[SKIP]] :
// CHECK: %[[R:.*]] = linalg.transpose ins(%[[ADD]] : {{.*}} permutation = [0, 3, 1, 2]
// CHECK-NOT: linalg.transpose
// CHECK: return %[[R]], %[[BACK]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @residual(%x: tensor<2x4x5x5xf32>, %w: tensor<4x4x1x1xf32>, %skip: tensor<2x4x5x5xf32>) -> (tensor<2x4x5x5xf32>, tensor<2x4x5x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x5x5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<2x4x5x5xf32>, tensor<4x4x1x1xf32>) outs(%f : tensor<2x4x5x5xf32>) -> tensor<2x4x5x5xf32>
  %add = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %x, %skip : tensor<2x4x5x5xf32>, tensor<2x4x5x5xf32>, tensor<2x4x5x5xf32>) outs(%e : tensor<2x4x5x5xf32>) {
  ^bb0(%a: f32, %b: f32, %s: f32, %out: f32):
    %t = arith.addf %a, %b : f32
    %u = arith.addf %t, %s : f32
    linalg.yield %u : f32
  } -> tensor<2x4x5x5xf32>
  return %add, %c : tensor<2x4x5x5xf32>, tensor<2x4x5x5xf32>
}

// -----

// What has no NHWC twin stays: an f64 convolution, a generic reading a
// loop index, a pad by a value computed in its body.
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT: nhwc
// CHECK-NOT: linalg.transpose
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: return
func.func @unchanged(%x: tensor<1x2x4x4xf64>, %w: tensor<2x2x1x1xf64>) -> tensor<1x2x4x4xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<1x2x4x4xf64>
  %f = linalg.fill ins(%zero : f64) outs(%e : tensor<1x2x4x4xf64>) -> tensor<1x2x4x4xf64>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x2x4x4xf64>, tensor<2x2x1x1xf64>) outs(%f : tensor<1x2x4x4xf64>) -> tensor<1x2x4x4xf64>
  return %c : tensor<1x2x4x4xf64>
}

// CHECK-LABEL: func.func @indexed
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: %[[BACK:.*]] = linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
// CHECK: linalg.generic {{.*}} ins(%[[BACK]]
// CHECK: linalg.index 1
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1]
#id2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @indexed(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) outs(%f : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %g = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x2x4x4xf32>) outs(%e : tensor<1x2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %r = arith.addf %in, %fi : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %p = tensor.pad %c low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %cc: index, %d: index):
    %v = arith.index_cast %cc : index to i64
    %fv = arith.sitofp %v : i64 to f32
    tensor.yield %fv : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
  return %g, %p : tensor<1x2x4x4xf32>, tensor<1x2x6x6xf32>
}

// -----

// A convolution in a branch no one reads, after one in the function's
// block: each block is its own region, and the pass erases only what it
// made dead (it once swept the function's block and freed the branch
// before rewriting it). The branch's convolution reads the function
// block's image and fill, so it transposes them itself.
// CHECK-LABEL: func.func @dead_branch
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: scf.if
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: scf.yield
// CHECK-NOT: nchw
func.func @dead_branch(%x: tensor<1x3x6x6xf32>, %w: tensor<5x3x3x3xf32>, %p: i1) -> tensor<1x5x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x5x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x3x6x6xf32>, tensor<5x3x3x3xf32>) outs(%f : tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>
  %r = scf.if %p -> tensor<1x5x4x4xf32> {
    %c2 = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x3x6x6xf32>, tensor<5x3x3x3xf32>) outs(%f : tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>
    scf.yield %c2 : tensor<1x5x4x4xf32>
  } else {
    scf.yield %c : tensor<1x5x4x4xf32>
  }
  return %c : tensor<1x5x4x4xf32>
}

// -----

// Filters stored as a resource blob (read by two convolutions), in an
// immutable global (its twin renamed past a name in use), and in a global
// holding the same blob are rearranged here, into one blob; a mutable global's is
// transposed when the program runs.
// CHECK-LABEL: ml_program.global private @g(
// CHECK-NEXT: ml_program.global private @[[GT:g_hwcf_[0-9]+]](dense<{{\[\[\[\[}}1.000000e+00, 3.000000e+00]], {{\[\[}}2.000000e+00, 4.000000e+00]]]]> : tensor<1x2x1x2xf32>)
// CHECK-NEXT: ml_program.global private @g_hwcf(dense<0.000000e+00> : tensor<2xf32>)
// CHECK: ml_program.global private @r_hwcf(dense_resource<blob_hwcf> : tensor<1x2x1x2xf32>)
// CHECK-LABEL: func.func @stored
// CHECK: %[[W:.*]] = arith.constant dense_resource<blob_hwcf> : tensor<1x2x1x2xf32>
// CHECK: linalg.conv_2d_nhwc_hwcf ins(%{{.*}}, %[[W]] :
// CHECK: linalg.conv_2d_nhwc_hwcf ins(%{{.*}}, %[[W]] :
// CHECK: %[[G:.*]] = ml_program.global_load_const @[[GT]] : tensor<1x2x1x2xf32>
// CHECK: linalg.conv_2d_nhwc_hwcf ins(%{{.*}}, %[[G]] :
// CHECK: %[[R:.*]] = ml_program.global_load_const @r_hwcf : tensor<1x2x1x2xf32>
// CHECK: linalg.conv_2d_nhwc_hwcf ins(%{{.*}}, %[[R]] :
// CHECK: %[[M:.*]] = ml_program.global_load @m
// CHECK: %[[MT:.*]] = linalg.transpose ins(%[[M]] : tensor<2x1x1x2xf32>) {{.*}} permutation = [2, 3, 1, 0]
// CHECK: linalg.conv_2d_nhwc_hwcf ins(%{{.*}}, %[[MT]] :
// CHECK: blob_hwcf: "0x040000000000803F000040400000004000008040"
// CHECK-NOT: blob_hwcf_
ml_program.global private @g(dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>) : tensor<2x1x1x2xf32>
ml_program.global private @g_hwcf(dense<0.0> : tensor<2xf32>) : tensor<2xf32>
ml_program.global private @r(dense_resource<blob> : tensor<2x1x1x2xf32>) : tensor<2x1x1x2xf32>
ml_program.global private mutable @m(dense<1.0> : tensor<2x1x1x2xf32>) : tensor<2x1x1x2xf32>
func.func @stored(%x: tensor<1x1x3x4xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %w = arith.constant dense_resource<blob> : tensor<2x1x1x2xf32>
  %a = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) outs(%f : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %b = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) outs(%f : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %gw = ml_program.global_load_const @g : tensor<2x1x1x2xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %gw : tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) outs(%f : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %rw = ml_program.global_load_const @r : tensor<2x1x1x2xf32>
  %d = linalg.conv_2d_nchw_fchw ins(%x, %rw : tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) outs(%f : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %mw = ml_program.global_load @m : tensor<2x1x1x2xf32>
  %g = linalg.conv_2d_nchw_fchw ins(%x, %mw : tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) outs(%f : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %a, %b, %c, %d, %g : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// One twin per stored filter for the whole module, whichever block or
// function reads it; a global reached through a nested reference gets its
// twin next to it, as visible, read through the same path.
// CHECK-LABEL: module @inner
// CHECK: ml_program.global public @w(
// CHECK-NEXT: ml_program.global public @w_hwcf(dense<{{.*}}> : tensor<1x2x1x2xf32>)
// CHECK-NOT: w_hwcf_
// CHECK-LABEL: func.func @first
// CHECK: arith.constant dense_resource<shared_hwcf> : tensor<1x2x1x2xf32>
// CHECK: ml_program.global_load_const @inner::@w_hwcf : tensor<1x2x1x2xf32>
// CHECK: scf.if
// CHECK: arith.constant dense_resource<shared_hwcf> : tensor<1x2x1x2xf32>
// CHECK-LABEL: func.func @second
// CHECK: arith.constant dense_resource<shared_hwcf> : tensor<1x2x1x2xf32>
// CHECK: ml_program.global_load_const @inner::@w_hwcf : tensor<1x2x1x2xf32>
// CHECK-NOT: shared_hwcf_
module @outer {
  module @inner {
    ml_program.global public @w(dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>) : tensor<2x1x1x2xf32>
  }
  func.func @first(%x: tensor<1x1x3x4xf32>, %p: i1) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x2x3x3xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
    %w = arith.constant dense_resource<shared> : tensor<2x1x1x2xf32>
    %a = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) outs(%f : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
    %gw = ml_program.global_load_const @inner::@w : tensor<2x1x1x2xf32>
    %b = linalg.conv_2d_nchw_fchw ins(%x, %gw : tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) outs(%f : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
    %c = scf.if %p -> tensor<1x2x3x3xf32> {
      %r = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) outs(%f : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
      scf.yield %r : tensor<1x2x3x3xf32>
    } else {
      scf.yield %f : tensor<1x2x3x3xf32>
    }
    return %a, %b, %c : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
  }
  func.func @second(%x: tensor<1x1x3x4xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x2x3x3xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
    %w = arith.constant dense_resource<shared> : tensor<2x1x1x2xf32>
    %a = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) outs(%f : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
    %gw = ml_program.global_load_const @inner::@w : tensor<2x1x1x2xf32>
    %b = linalg.conv_2d_nchw_fchw ins(%x, %gw : tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) outs(%f : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
    return %a, %b : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      shared: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// Stored filters whose elements do not make the filter are left to the
// runtime (which reports them): a blob one byte too long, a global whose
// value is of another shape than the global.
// CHECK-LABEL: func.func @unusable
// CHECK: %[[LONG:.*]] = arith.constant dense_resource<long>
// CHECK: linalg.transpose ins(%[[LONG]] : tensor<2x1x1x2xf32>)
// CHECK: %[[ODD:.*]] = ml_program.global_load_const @odd
// CHECK: linalg.transpose ins(%[[ODD]] : tensor<2x1x1x2xf32>)
// CHECK-NOT: {{long_hwcf|odd_hwcf}}
ml_program.global private @odd(dense<[[[[1.0, 2.0]], [[3.0, 4.0]]]]> : tensor<1x2x1x2xf32>) : tensor<2x1x1x2xf32>
func.func @unusable(%x: tensor<1x1x3x4xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x3x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %w = arith.constant dense_resource<long> : tensor<2x1x1x2xf32>
  %a = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) outs(%f : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %gw = ml_program.global_load_const @odd : tensor<2x1x1x2xf32>
  %b = linalg.conv_2d_nchw_fchw ins(%x, %gw : tensor<1x1x3x4xf32>, tensor<2x1x1x2xf32>) outs(%f : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  return %a, %b : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      long: "0x040000000000803F00000040000040400000804001"
    }
  }
#-}
