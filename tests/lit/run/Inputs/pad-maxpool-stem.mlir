// A ResNet-stem max pooling (3x3, stride 2, padded by one with -inf) over
// 16x16x16 with its rows split over x=4: one row from the left neighbour
// (1,024 bytes), the border made locally.
spmd.mesh @mesh = <["x"=4]>
func.func @f(%x: tensor<1x16x16x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>})
    -> (tensor<1x8x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}) {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<1x16x16x16xf32> to tensor<1x18x18x16xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x8x8x16xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %m = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<1x18x18x16xf32>, tensor<3x3xf32>) outs(%f : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %m : tensor<1x8x8x16xf32>
}
