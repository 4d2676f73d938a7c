// A convolution (NHWC, 3x3 window) and a stride-2 max pooling with their
// rows split over 2 devices: halos from the neighbours.
spmd.mesh @mesh = <["x"=2]>
func.func @conv(%in: tensor<2x19x10x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>},
                %f: tensor<3x3x3x4xf32>) -> tensor<2x8x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x17x8x4xf32>
  %fill = linalg.fill ins(%z : f32) outs(%e : tensor<2x17x8x4xf32>) -> tensor<2x17x8x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %f : tensor<2x19x10x3xf32>, tensor<3x3x3x4xf32>) outs(%fill : tensor<2x17x8x4xf32>) -> tensor<2x17x8x4xf32>
  %w = tensor.empty() : tensor<3x2xf32>
  %m = arith.constant -3.0e38 : f32
  %pe = tensor.empty() : tensor<2x8x4x4xf32>
  %pf = linalg.fill ins(%m : f32) outs(%pe : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%c, %w : tensor<2x17x8x4xf32>, tensor<3x2xf32>) outs(%pf : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  return %p : tensor<2x8x4x4xf32>
}
