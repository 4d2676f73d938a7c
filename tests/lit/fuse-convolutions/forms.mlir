// RUN: spmd-opt %s --split-input-file --spmd-fuse-convolutions | FileCheck %s

// A layer as importers write it: a fill of +0.0, a pad of rows and
// columns, the convolution and an elementwise reader: all four move, in
// order, into one fusion yielding the reader's result.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @layer
// CHECK: %[[F:.*]] = spmd.fusion -> tensor<1x8x8x16xf32> {
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: tensor.pad
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK-NEXT: %[[G:.*]] = linalg.generic
// CHECK: spmd.yield %[[G]] : tensor<1x8x8x16xf32>
// CHECK: return %[[F]]
func.func @layer(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4x16xf32>) -> tensor<1x8x8x16xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
  %e = tensor.empty() : tensor<1x8x8x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x10x10x4xf32>, tensor<3x3x4x16xf32>) outs(%f : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x8x8x16xf32>) outs(%e : tensor<1x8x8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x16xf32>
  return %r : tensor<1x8x8x16xf32>
}

// -----

// A depthwise convolution and its reader; its init is an argument, which
// stays outside.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @depthwise
// CHECK: spmd.fusion
// CHECK-NEXT: linalg.depthwise_conv_2d_nhwc_hwc
// CHECK-NEXT: linalg.generic
func.func @depthwise(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x4xf32>, %b: tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32> {
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x8x4xf32>, tensor<3x3x4xf32>) outs(%b : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x6x6x4xf32>) outs(%b : tensor<1x6x6x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<1x6x6x4xf32>
  return %r : tensor<1x6x6x4xf32>
}

// -----

// Nothing to take in: a convolution whose result is also returned, whose
// image pads the channels too, whose fill is -0.0 and read twice: no
// fusion. Nor an f64 convolution, nor a reader that broadcasts, nor a
// fill alone.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bc = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
// CHECK-LABEL: func.func @none
// CHECK-NOT: spmd.fusion
// CHECK: return
func.func @none(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x5x16xf32>, %x64: tensor<1x8x8x4xf64>, %w64: tensor<3x3x4x16xf64>, %wb: tensor<3x3x4x16xf32>)
    -> (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x6x6x16xf64>, tensor<1x6x6x16xf32>, tensor<1x6x6x16xf32>) {
  %z = arith.constant 0.0 : f32
  %nz = arith.constant -0.0 : f32
  %z64 = arith.constant 0.0 : f64
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x8x8x4xf32> to tensor<1x10x10x5xf32>
  %e = tensor.empty() : tensor<1x8x8x16xf32>
  %f = linalg.fill ins(%nz : f32) outs(%e : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x10x10x5xf32>, tensor<3x3x5x16xf32>) outs(%f : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %e64 = tensor.empty() : tensor<1x6x6x16xf64>
  %f64 = linalg.fill ins(%z64 : f64) outs(%e64 : tensor<1x6x6x16xf64>) -> tensor<1x6x6x16xf64>
  %c64 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x64, %w64 : tensor<1x8x8x4xf64>, tensor<3x3x4x16xf64>) outs(%f64 : tensor<1x6x6x16xf64>) -> tensor<1x6x6x16xf64>
  %e6 = tensor.empty() : tensor<1x6x6x16xf32>
  %f6 = linalg.fill ins(%z : f32) outs(%e6 : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %cb = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %wb : tensor<1x8x8x4xf32>, tensor<3x3x4x16xf32>) outs(%f6 : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %rb = linalg.generic {indexing_maps = [#bc, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%cb : tensor<1x6x6x16xf32>) outs(%e6 : tensor<1x6x6x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x6x6x16xf32>
  %f7 = linalg.fill ins(%z : f32) outs(%e6 : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %c7 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %wb : tensor<1x8x8x4xf32>, tensor<3x3x4x16xf32>) outs(%f7 : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  return %c, %f, %c64, %rb, %c7 : tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x6x6x16xf64>, tensor<1x6x6x16xf32>, tensor<1x6x6x16xf32>
}
