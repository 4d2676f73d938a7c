// A same-padding 3x3 convolution (NHWC, 16x16x16) with its rows split over
// x=4, padded on both spatial dimensions: one row of the 16-wide input from
// each neighbour (2,048 bytes), the columns padded locally.
spmd.mesh @mesh = <["x"=4]>
func.func @f(%x: tensor<1x16x16x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>},
             %w: tensor<3x3x16x8xf32>)
    -> (tensor<1x16x16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %z : f32
  } : tensor<1x16x16x16xf32> to tensor<1x18x18x16xf32>
  %e = tensor.empty() : tensor<1x16x16x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x18x18x16xf32>, tensor<3x3x16x8xf32>) outs(%f : tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32>
  return %c : tensor<1x16x16x8xf32>
}
