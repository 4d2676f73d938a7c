#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
#b0 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
func.func @block(%x: tensor<2x3x13x11xf32>, %skip: tensor<2x8x7x6xf32>, %scale: tensor<8xf32>) -> (tensor<2x8x7x6xf32>, tensor<2x8x1x1xf32>, tensor<2x8x13x11xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %w1 = arith.constant dense<[[[[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [0.7, 0.8, 0.9]], [[1.0, 1.1, 1.2], [-1.3, 1.4, 1.5], [1.6, 1.7, 1.8]], [[0.05, 0.15, 0.25], [0.35, -0.45, 0.55], [0.65, 0.75, 0.85]]], [[[0.2, 0.1, 0.0], [-0.1, -0.2, -0.3], [0.3, 0.2, 0.1]], [[0.5, 0.4, 0.3], [0.2, 0.1, 0.0], [-0.1, -0.2, -0.3]], [[1.5, 1.4, 1.3], [1.2, 1.1, 1.0], [0.9, 0.8, 0.7]]], [[[0.3, 0.3, 0.3], [0.1, 0.1, 0.1], [0.2, 0.2, 0.2]], [[0.4, 0.4, 0.4], [0.5, 0.5, 0.5], [0.6, 0.6, 0.6]], [[0.7, 0.7, 0.7], [0.8, 0.8, 0.8], [0.9, 0.9, 0.9]]], [[[-0.3, 0.3, -0.3], [0.1, -0.1, 0.1], [0.2, -0.2, 0.2]], [[0.4, -0.4, 0.4], [0.5, -0.5, 0.5], [0.6, -0.6, 0.6]], [[0.7, -0.7, 0.7], [0.8, -0.8, 0.8], [0.9, -0.9, 0.9]]], [[[0.11, 0.12, 0.13], [0.14, 0.15, 0.16], [0.17, 0.18, 0.19]], [[0.21, 0.22, 0.23], [0.24, 0.25, 0.26], [0.27, 0.28, 0.29]], [[0.31, 0.32, 0.33], [0.34, 0.35, 0.36], [0.37, 0.38, 0.39]]], [[[0.5, 0.0, -0.5], [0.0, 0.5, 0.0], [-0.5, 0.0, 0.5]], [[0.25, 0.0, -0.25], [0.0, 0.25, 0.0], [-0.25, 0.0, 0.25]], [[0.75, 0.0, -0.75], [0.0, 0.75, 0.0], [-0.75, 0.0, 0.75]]], [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0], [-7.0, -8.0, -9.0]], [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]]], [[[0.9, 0.8, 0.7], [0.6, 0.5, 0.4], [0.3, 0.2, 0.1]], [[0.01, 0.02, 0.03], [0.04, 0.05, 0.06], [0.07, 0.08, 0.09]], [[-0.9, -0.8, -0.7], [-0.6, -0.5, -0.4], [-0.3, -0.2, -0.1]]]]> : tensor<8x3x3x3xf32>
  %w2 = arith.constant dense<0.03> : tensor<8x8x1x1xf32>
  %pad = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<2x3x13x11xf32> to tensor<2x3x15x13xf32>
  %e1 = tensor.empty() : tensor<2x8x13x11xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x8x13x11xf32>) -> tensor<2x8x13x11xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%pad, %w1 : tensor<2x3x15x13xf32>, tensor<8x3x3x3xf32>) outs(%f1 : tensor<2x8x13x11xf32>) -> tensor<2x8x13x11xf32>
  %bn = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1, %scale : tensor<2x8x13x11xf32>, tensor<8xf32>) outs(%e1 : tensor<2x8x13x11xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    %p = arith.cmpf ugt, %m, %zero : f32
    %r = arith.select %p, %m, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8x13x11xf32>
  %mp = tensor.pad %bn low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<2x8x13x11xf32> to tensor<2x8x15x13xf32>
  %e2 = tensor.empty() : tensor<2x8x7x6xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2x8x7x6xf32>) -> tensor<2x8x7x6xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%mp, %win : tensor<2x8x15x13xf32>, tensor<3x3xf32>) outs(%f2 : tensor<2x8x7x6xf32>) -> tensor<2x8x7x6xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x8x7x6xf32>) -> tensor<2x8x7x6xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%pool, %w2 : tensor<2x8x7x6xf32>, tensor<8x8x1x1xf32>) outs(%f3 : tensor<2x8x7x6xf32>) -> tensor<2x8x7x6xf32>
  %add = linalg.generic {indexing_maps = [#b0, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2, %skip : tensor<2x8x7x6xf32>, tensor<2x8x7x6xf32>) outs(%e2 : tensor<2x8x7x6xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x8x7x6xf32>
  %e4 = tensor.empty() : tensor<2x8x1x1xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x8x1x1xf32>) -> tensor<2x8x1x1xf32>
  %win2 = tensor.empty() : tensor<7x6xf32>
  %sum = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%add, %win2 : tensor<2x8x7x6xf32>, tensor<7x6xf32>) outs(%f4 : tensor<2x8x1x1xf32>) -> tensor<2x8x1x1xf32>
  return %add, %sum, %c1 : tensor<2x8x7x6xf32>, tensor<2x8x1x1xf32>, tensor<2x8x13x11xf32>
}

// A strided, dilated convolution whose filter is an argument, an image read
// by a convolution and by a generic through a broadcast of its batch, the
// result read outside the region by a collapse.
#bcast = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#idd = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @strided(%x: tensor<3x5x33x24xf32>, %w: tensor<6x5x3x2xf32>, %y: tensor<1x6x15x11xf32>) -> tensor<3x990xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x6x15x11xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x6x15x11xf32>) -> tensor<3x6x15x11xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<[2, 3]> : vector<2xi64>, strides = dense<[2, 2]> : vector<2xi64>} ins(%x, %w : tensor<3x5x33x24xf32>, tensor<6x5x3x2xf32>) outs(%f : tensor<3x6x15x11xf32>) -> tensor<3x6x15x11xf32>
  %g = linalg.generic {indexing_maps = [#idd, #bcast, #idd], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %y : tensor<3x6x15x11xf32>, tensor<1x6x15x11xf32>) outs(%e : tensor<3x6x15x11xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.subf %m, %a : f32
    linalg.yield %s : f32
  } -> tensor<3x6x15x11xf32>
  %r = tensor.collapse_shape %g [[0], [1, 2, 3]] : tensor<3x6x15x11xf32> into tensor<3x990xf32>
  return %r : tensor<3x990xf32>
}

// Filters stored as a resource blob (read by two convolutions), in a
// global, and in a global holding a resource blob.
ml_program.global private @gw(dense<[[[[-0.41, 0.54], [0.75, -0.91], [0.23, -0.91]], [[0.44, -0.34], [0.76, 0.96], [0.01, 1.0]], [[-0.38, -0.85], [0.2, -0.94], [-0.61, -0.18]]], [[[0.22, -0.69], [-0.92, 0.74], [-0.37, 0.92]], [[0.79, -0.24], [-0.08, 0.04], [0.29, 0.19]], [[0.12, 0.24], [0.88, 0.01], [-0.14, 0.44]]], [[[-0.52, -0.4], [0.96, 0.04], [0.1, -0.98]], [[-0.17, 0.16], [-0.96, 0.23], [0.26, -0.88]], [[0.25, -0.07], [0.36, -0.29], [0.41, 0.48]]], [[[-0.96, -0.88], [0.35, 0.93], [-0.5, -0.09]], [[0.19, -0.36], [-0.27, -0.37], [-0.26, 0.19]], [[-0.4, -0.25], [0.54, -0.95], [0.14, 0.47]]]]> : tensor<4x3x3x2xf32>) : tensor<4x3x3x2xf32>
ml_program.global private @rw(dense_resource<stored_filter> : tensor<4x3x3x2xf32>) : tensor<4x3x3x2xf32>
func.func @stored(%x: tensor<2x3x12x12xf32>) -> (tensor<2x4x10x11xf32>, tensor<2x4x10x11xf32>, tensor<2x4x10x11xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x10x11xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x10x11xf32>) -> tensor<2x4x10x11xf32>
  %w = arith.constant dense_resource<stored_filter> : tensor<4x3x3x2xf32>
  %a = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<2x3x12x12xf32>, tensor<4x3x3x2xf32>) outs(%f : tensor<2x4x10x11xf32>) -> tensor<2x4x10x11xf32>
  %gw = ml_program.global_load_const @gw : tensor<4x3x3x2xf32>
  %b = linalg.conv_2d_nchw_fchw ins(%x, %gw : tensor<2x3x12x12xf32>, tensor<4x3x3x2xf32>) outs(%a : tensor<2x4x10x11xf32>) -> tensor<2x4x10x11xf32>
  %rw = ml_program.global_load_const @rw : tensor<4x3x3x2xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %rw : tensor<2x3x12x12xf32>, tensor<4x3x3x2xf32>) outs(%f : tensor<2x4x10x11xf32>) -> tensor<2x4x10x11xf32>
  %d = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<2x3x12x12xf32>, tensor<4x3x3x2xf32>) outs(%c : tensor<2x4x10x11xf32>) -> tensor<2x4x10x11xf32>
  return %a, %b, %d : tensor<2x4x10x11xf32>, tensor<2x4x10x11xf32>, tensor<2x4x10x11xf32>
}

{-#
  dialect_resources: {
    builtin: {
      stored_filter: "0x04000000DD2406BF5839B43DB81E85BEF4FD543E1283803EC9765EBF105879BFCDCC2C3FA245F6BE9EEF07BF2DB27D3FFCA971BDBA492C3F128340BD04568E3EAAF132BF713D8A3E7F6A3C3F7F6A3C3DC74BF73EB29DAF3E643B5FBF9318043F355E3A3E9643CBBEC52070BFD1223B3FAE4761BD8941E03E4A0C423FD122DB3E508D573F3D0A57BEAC1C1A3FF853E3BDDBF95E3F4A0C423F7B144EBF355E3ABF60E510BF04566E3F6F1203BE3789813EA8C6CBBE4260653CD57869BE759398BE7B142E3E560E2D3E17D94E3F355EBA3EE3A55B3F2B87363F5A647B3FB29DAF3E448B2CBF7593383FF2D26D3FA01A4F3FDF4F0D3ED122DB3ECFF713BF5EBA293F2B87163EF628DCBEEE7C5FBF7D3F353F48E17A3F21B052BF23DB193FC74B37BE21B032BF"
    }
  }
#-}
