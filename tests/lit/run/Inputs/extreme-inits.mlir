// Max and min reductions from the inits torch-mlir and hand-written code
// use: -inf (max pooling, argmax), a huge finite number, +inf for a min,
// over a dimension split over 2 devices. A max is one of its operands:
// its error is the winner's, not the init's magnitude.
spmd.mesh @mesh = <["x"=2]>

func.func @max_from_ninf(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<8xf32> {
  %init = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%init : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.reduce ins(%a : tensor<8x16xf32>) outs(%f : tensor<8xf32>) dimensions = [1]
    (%x: f32, %y: f32) {
      %m = arith.maximumf %x, %y : f32
      linalg.yield %m : f32
    }
  return %r : tensor<8xf32>
}

func.func @max_from_huge(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<8xf32> {
  %init = arith.constant -3.0e38 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%init : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.reduce ins(%a : tensor<8x16xf32>) outs(%f : tensor<8xf32>) dimensions = [1]
    (%x: f32, %y: f32) {
      %m = arith.maxnumf %x, %y : f32
      linalg.yield %m : f32
    }
  return %r : tensor<8xf32>
}

func.func @min_from_inf(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<8xf32> {
  %init = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%init : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.reduce ins(%a : tensor<8x16xf32>) outs(%f : tensor<8xf32>) dimensions = [1]
    (%x: f32, %y: f32) {
      %m = arith.minimumf %x, %y : f32
      linalg.yield %m : f32
    }
  return %r : tensor<8xf32>
}

// Max pooling, 2x2 windows of stride 2, as torch-mlir writes it, the
// image split by rows; then a sum of the pooled values.
func.func @max_pool(%img: tensor<1x8x8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}, {}]>}) -> (tensor<1x4x4x4xf32>, tensor<f32>) {
  %init = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%init : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%img, %window : tensor<1x8x8x4xf32>, tensor<2x2xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %zero = arith.constant 0.0 : f32
  %se = tensor.empty() : tensor<f32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce ins(%p : tensor<1x4x4x4xf32>) outs(%sf : tensor<f32>) dimensions = [0, 1, 2, 3]
    (%x: f32, %y: f32) {
      %m = arith.addf %x, %y : f32
      linalg.yield %m : f32
    }
  return %p, %s : tensor<1x4x4x4xf32>, tensor<f32>
}
