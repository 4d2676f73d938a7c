// Pads read through by the window ops they feed, in the shapes users write
// and stranger ones: uneven rows, strides and dilations, asymmetric and
// causal pads, pads on two split dimensions, non-zero padding values, a
// pad also used elsewhere, a crop (unit-stride slice), a stencil generic.
spmd.mesh @mesh = <["x"=4]>
spmd.mesh @grid = <["x"=2, "y"=2]>

// 15 rows over 4 devices (4, 4, 4, 3), padded 2 above and 1 below.
func.func @uneven(%x: tensor<1x15x5x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}, %w: tensor<3x3x2x3xf32>)
    -> (tensor<1x16x5x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 2, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %z : f32
  } : tensor<1x15x5x2xf32> to tensor<1x18x7x2xf32>
  %e = tensor.empty() : tensor<1x16x5x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x16x5x3xf32>) -> tensor<1x16x5x3xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x18x7x2xf32>, tensor<3x3x2x3xf32>) outs(%f : tensor<1x16x5x3xf32>) -> tensor<1x16x5x3xf32>
  return %c : tensor<1x16x5x3xf32>
}

// Stride 2 and dilation 2 on the split rows, a pad value of 0.5.
func.func @strided(%x: tensor<1x17x6x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}, %w: tensor<3x2x2x2xf32>)
    -> (tensor<1x9x7x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %h = arith.constant 0.5 : f32
  %p = tensor.pad %x low[0, 3, 1, 0] high[0, 2, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %h : f32
  } : tensor<1x17x6x2xf32> to tensor<1x22x8x2xf32>
  %e = tensor.empty() : tensor<1x9x7x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x9x7x2xf32>) -> tensor<1x9x7x2xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
      ins(%p, %w : tensor<1x22x8x2xf32>, tensor<3x2x2x2xf32>) outs(%f : tensor<1x9x7x2xf32>) -> tensor<1x9x7x2xf32>
  return %c : tensor<1x9x7x2xf32>
}

// Rows over x and columns over y, both padded; a sum pooling of 1.5s.
func.func @two_dims(%x: tensor<1x10x9x3xf32> {spmd.sharding = #spmd.sharding<@grid, [{}, {"x"}, {"y"}, {}]>})
    -> (tensor<1x10x9x3xf32> {spmd.sharding = #spmd.sharding<@grid, [{}, {"x"}, {"y"}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %v = arith.constant 1.5 : f32
  %p = tensor.pad %x low[0, 1, 2, 0] high[0, 1, 0, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %v : f32
  } : tensor<1x10x9x3xf32> to tensor<1x12x11x3xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x10x9x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x10x9x3xf32>) -> tensor<1x10x9x3xf32>
  %s = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x12x11x3xf32>, tensor<3x3xf32>) outs(%f : tensor<1x10x9x3xf32>) -> tensor<1x10x9x3xf32>
  return %s : tensor<1x10x9x3xf32>
}

// The padded tensor is also returned: it is made as before, and the max
// pooling still reads through.
func.func @shared(%x: tensor<1x16x4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>})
    -> (tensor<1x8x2x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>},
        tensor<1x18x6x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}) {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<1x16x4x2xf32> to tensor<1x18x6x2xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x8x2x2xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32>
  %m = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<1x18x6x2xf32>, tensor<3x3xf32>) outs(%f : tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32>
  return %m, %p : tensor<1x8x2x2xf32>, tensor<1x18x6x2xf32>
}

// A causal 1-D stencil (a generic with window indexing, nonlinear body)
// over a pad on the left only, 13 elements over 4 devices.
func.func @causal(%x: tensor<13xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %k: tensor<3xf32>)
    -> (tensor<13xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %z = arith.constant -2.0 : f32
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[2] high[0] {
  ^bb0(%i: index):
    tensor.yield %z : f32
  } : tensor<13xf32> to tensor<15xf32>
  %e = tensor.empty() : tensor<13xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<13xf32>) -> tensor<13xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i + j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%p, %k : tensor<15xf32>, tensor<3xf32>) outs(%f : tensor<13xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %aa = arith.mulf %a, %a : f32
    %ab = arith.mulf %aa, %b : f32
    %r = arith.addf %o, %ab : f32
    linalg.yield %r : f32
  } -> tensor<13xf32>
  return %s : tensor<13xf32>
}

// A crop (unit-stride slice) of rows and columns feeding a convolution.
func.func @crop(%x: tensor<1x20x7x1xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}, %w: tensor<3x1x1x1xf32>)
    -> (tensor<1x14x4x1xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %s = tensor.extract_slice %x[0, 3, 2, 0] [1, 16, 4, 1] [1, 1, 1, 1] : tensor<1x20x7x1xf32> to tensor<1x16x4x1xf32>
  %e = tensor.empty() : tensor<1x14x4x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x14x4x1xf32>) -> tensor<1x14x4x1xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%s, %w : tensor<1x16x4x1xf32>, tensor<3x1x1x1xf32>) outs(%f : tensor<1x14x4x1xf32>) -> tensor<1x14x4x1xf32>
  return %c : tensor<1x14x4x1xf32>
}

// A depthwise convolution over a pad of its channels too (channels whole).
func.func @depthwise(%x: tensor<2x11x5x3xf64> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}, %w: tensor<3x3x4xf64>)
    -> (tensor<2x11x5x4xf64> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}) {
  %z = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %one : f64
  } : tensor<2x11x5x3xf64> to tensor<2x13x7x4xf64>
  %e = tensor.empty() : tensor<2x11x5x4xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<2x11x5x4xf64>) -> tensor<2x11x5x4xf64>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x13x7x4xf64>, tensor<3x3x4xf64>) outs(%f : tensor<2x11x5x4xf64>) -> tensor<2x11x5x4xf64>
  return %c : tensor<2x11x5x4xf64>
}
