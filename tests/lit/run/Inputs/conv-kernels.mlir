// Convolutions that take each path of the Eigen kernels (im2col with
// strides and dilations, 1x1 read in place, 1x1 on a cropped input), in
// both layouts and both float types.
func.func @nhwc_strided(%x: tensor<2x9x12x3xf32>, %w: tensor<3x2x3x5xf32>, %b: tensor<2x4x4x5xf32>) -> tensor<2x4x4x5xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 3]> : tensor<2xi64>}
    ins(%x, %w : tensor<2x9x12x3xf32>, tensor<3x2x3x5xf32>) outs(%b : tensor<2x4x4x5xf32>) -> tensor<2x4x4x5xf32>
  return %0 : tensor<2x4x4x5xf32>
}
func.func @nhwc_1x1(%x: tensor<1x6x7x4xf32>, %w: tensor<1x1x4x3xf32>, %b: tensor<1x6x7x3xf32>) -> tensor<1x6x7x3xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x6x7x4xf32>, tensor<1x1x4x3xf32>) outs(%b : tensor<1x6x7x3xf32>) -> tensor<1x6x7x3xf32>
  return %0 : tensor<1x6x7x3xf32>
}
func.func @nhwc_1x1_cropped(%x: tensor<1x6x7x4xf64>, %w: tensor<1x1x4x3xf64>, %b: tensor<1x5x6x3xf64>) -> tensor<1x5x6x3xf64> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x6x7x4xf64>, tensor<1x1x4x3xf64>) outs(%b : tensor<1x5x6x3xf64>) -> tensor<1x5x6x3xf64>
  return %0 : tensor<1x5x6x3xf64>
}
func.func @nchw_dilated(%x: tensor<2x3x10x9xf32>, %w: tensor<4x3x3x2xf32>, %b: tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<2x3x10x9xf32>, tensor<4x3x3x2xf32>) outs(%b : tensor<2x4x6x8xf32>) -> tensor<2x4x6x8xf32>
  return %0 : tensor<2x4x6x8xf32>
}
func.func @nchw_1x1(%x: tensor<2x5x4x3xf64>, %w: tensor<6x5x1x1xf64>, %b: tensor<2x6x4x3xf64>) -> tensor<2x6x4x3xf64> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<2x5x4x3xf64>, tensor<6x5x1x1xf64>) outs(%b : tensor<2x6x4x3xf64>) -> tensor<2x6x4x3xf64>
  return %0 : tensor<2x6x4x3xf64>
}
func.func @nchw_strided(%x: tensor<1x2x9x9xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<1x2x9x9xf32>, tensor<3x2x3x3xf32>) outs(%b : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}
