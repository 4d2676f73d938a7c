// Pooling and depthwise convolutions taking each path of the window
// kernels (channels last and first, strides, dilations, both float types).
func.func @nhwc_max(%x: tensor<2x9x10x5xf32>, %b: tensor<2x4x4x5xf32>) -> tensor<2x4x4x5xf32> {
  %w = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<2x9x10x5xf32>, tensor<3x3xf32>) outs(%b : tensor<2x4x4x5xf32>) -> tensor<2x4x4x5xf32>
  return %0 : tensor<2x4x4x5xf32>
}
func.func @nhwc_min(%x: tensor<1x6x6x3xf64>, %b: tensor<1x5x4x3xf64>) -> tensor<1x5x4x3xf64> {
  %w = tensor.empty() : tensor<2x3xf64>
  %0 = linalg.pooling_nhwc_min {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x6x6x3xf64>, tensor<2x3xf64>) outs(%b : tensor<1x5x4x3xf64>) -> tensor<1x5x4x3xf64>
  return %0 : tensor<1x5x4x3xf64>
}
func.func @nhwc_sum(%x: tensor<1x8x8x4xf32>, %b: tensor<1x4x6x4xf32>) -> tensor<1x4x6x4xf32> {
  %w = tensor.empty() : tensor<3x2xf32>
  %0 = linalg.pooling_nhwc_sum {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<1x8x8x4xf32>, tensor<3x2xf32>) outs(%b : tensor<1x4x6x4xf32>) -> tensor<1x4x6x4xf32>
  return %0 : tensor<1x4x6x4xf32>
}
func.func @nchw_max(%x: tensor<2x3x9x9xf32>, %b: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32> {
  %w = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<2x3x9x9xf32>, tensor<3x3xf32>) outs(%b : tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  return %0 : tensor<2x3x4x4xf32>
}
func.func @nchw_sum(%x: tensor<1x2x7x7xf64>, %b: tensor<1x2x3x5xf64>) -> tensor<1x2x3x5xf64> {
  %w = tensor.empty() : tensor<3x3xf64>
  %0 = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}
    ins(%x, %w : tensor<1x2x7x7xf64>, tensor<3x3xf64>) outs(%b : tensor<1x2x3x5xf64>) -> tensor<1x2x3x5xf64>
  return %0 : tensor<1x2x3x5xf64>
}
func.func @depthwise_nhwc(%x: tensor<2x9x9x6xf32>, %f: tensor<3x3x6xf32>, %b: tensor<2x3x4x6xf32>) -> tensor<2x3x4x6xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %f : tensor<2x9x9x6xf32>, tensor<3x3x6xf32>) outs(%b : tensor<2x3x4x6xf32>) -> tensor<2x3x4x6xf32>
  return %0 : tensor<2x3x4x6xf32>
}
func.func @depthwise_nchw(%x: tensor<1x4x8x8xf64>, %f: tensor<4x3x3xf64>, %b: tensor<1x4x6x3xf64>) -> tensor<1x4x6x3xf64> {
  %0 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>}
    ins(%x, %f : tensor<1x4x8x8xf64>, tensor<4x3x3xf64>) outs(%b : tensor<1x4x6x3xf64>) -> tensor<1x4x6x3xf64>
  return %0 : tensor<1x4x6x3xf64>
}
// More channels than a vector register holds, with and without a
// remainder (43 and 40 f32, 21 f64).
func.func @nhwc_max_wide(%x: tensor<1x7x7x43xf32>, %b: tensor<1x3x3x43xf32>) -> tensor<1x3x3x43xf32> {
  %w = tensor.empty() : tensor<3x3xf32>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<1x7x7x43xf32>, tensor<3x3xf32>) outs(%b : tensor<1x3x3x43xf32>) -> tensor<1x3x3x43xf32>
  return %0 : tensor<1x3x3x43xf32>
}
func.func @nhwc_min_wide(%x: tensor<1x4x4x40xf32>, %b: tensor<1x2x2x40xf32>) -> tensor<1x2x2x40xf32> {
  %w = tensor.empty() : tensor<2x2xf32>
  %0 = linalg.pooling_nhwc_min {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<1x4x4x40xf32>, tensor<2x2xf32>) outs(%b : tensor<1x2x2x40xf32>) -> tensor<1x2x2x40xf32>
  return %0 : tensor<1x2x2x40xf32>
}
func.func @nhwc_sum_wide(%x: tensor<2x5x6x21xf64>, %b: tensor<2x4x4x21xf64>) -> tensor<2x4x4x21xf64> {
  %w = tensor.empty() : tensor<2x2xf64>
  %0 = linalg.pooling_nhwc_sum {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : tensor<2x5x6x21xf64>, tensor<2x2xf64>) outs(%b : tensor<2x4x4x21xf64>) -> tensor<2x4x4x21xf64>
  return %0 : tensor<2x4x4x21xf64>
}
func.func @depthwise_nhwc_wide(%x: tensor<1x6x6x21xf64>, %f: tensor<3x3x21xf64>, %b: tensor<1x4x4x21xf64>) -> tensor<1x4x4x21xf64> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %f : tensor<1x6x6x21xf64>, tensor<3x3x21xf64>) outs(%b : tensor<1x4x4x21xf64>) -> tensor<1x4x4x21xf64>
  return %0 : tensor<1x4x4x21xf64>
}
