// A convolution whose im2col matrix the kernel allocates.
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @conv(%x: tensor<4x14x14x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}, {}, {}]>},
                %w: tensor<3x3x32x64xf32>) -> tensor<4x12x12x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x12x12x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x12x12x64xf32>) -> tensor<4x12x12x64xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<4x14x14x32xf32>, tensor<3x3x32x64xf32>) outs(%f : tensor<4x12x12x64xf32>) -> tensor<4x12x12x64xf32>
  return %y : tensor<4x12x12x64xf32>
}
