// arith.maximumf and arith.minimumf order -0.0 below +0.0 (LLVM's maximum
// and minimum), whichever operand comes first. Each entry returns 1 / its
// result, so that the zero's sign shows as inf or -inf. The inputs are
// written by the test: %a = [+0, +0, -0, -0], %b = [-0, -0, +0, +0], so
// that each op meets +0 first and -0 first, and, split over two devices,
// the devices' partial results differ in sign.
#v = affine_map<(i) -> (i)>
spmd.mesh @mesh = <["x"=2]>
func.func @elementwise(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.maximumf %x, %y : f32
    %r = arith.divf %one, %m : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %min = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.minimumf %x, %y : f32
    %r = arith.divf %one, %m : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %max, %min : tensor<4xf32>, tensor<4xf32>
}

// The reduction kernel's folds: max and min of each input, from -inf and
// +inf.
func.func @reduced(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<f32>
  %lo = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %hi = linalg.fill ins(%pinf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %amax = linalg.reduce ins(%a : tensor<4xf32>) outs(%lo : tensor<f32>) dimensions = [0]
    (%x: f32, %o: f32) { %m = arith.maximumf %x, %o : f32  linalg.yield %m : f32 }
  %bmax = linalg.reduce ins(%b : tensor<4xf32>) outs(%lo : tensor<f32>) dimensions = [0]
    (%x: f32, %o: f32) { %m = arith.maximumf %o, %x : f32  linalg.yield %m : f32 }
  %amin = linalg.reduce ins(%a : tensor<4xf32>) outs(%hi : tensor<f32>) dimensions = [0]
    (%x: f32, %o: f32) { %m = arith.minimumf %x, %o : f32  linalg.yield %m : f32 }
  %bmin = linalg.reduce ins(%b : tensor<4xf32>) outs(%hi : tensor<f32>) dimensions = [0]
    (%x: f32, %o: f32) { %m = arith.minimumf %o, %x : f32  linalg.yield %m : f32 }
  %s0 = tensor.extract %amax[] : tensor<f32>
  %s1 = tensor.extract %bmax[] : tensor<f32>
  %s2 = tensor.extract %amin[] : tensor<f32>
  %s3 = tensor.extract %bmin[] : tensor<f32>
  %t = tensor.from_elements %s0, %s1, %s2, %s3 : tensor<4xf32>
  %out = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%t : tensor<4xf32>) outs(%out : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %q = arith.divf %one, %x : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// The window kernel: a 2x2 max pooling over %a.
func.func @pooled(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1x1x1x1xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %one = arith.constant 1.0 : f32
  %img = tensor.expand_shape %a [[0, 1, 2, 3]] output_shape [1, 2, 2, 1] : tensor<4xf32> into tensor<1x2x2x1xf32>
  %k = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x1x1x1xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%img, %k : tensor<1x2x2x1xf32>, tensor<2x2xf32>) outs(%f : tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j, k, l) -> (i, j, k, l)>, affine_map<(i, j, k, l) -> (i, j, k, l)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p : tensor<1x1x1x1xf32>) outs(%e : tensor<1x1x1x1xf32>) {
  ^bb0(%x: f32, %o: f32):
    %q = arith.divf %one, %x : f32
    linalg.yield %q : f32
  } -> tensor<1x1x1x1xf32>
  return %r : tensor<1x1x1x1xf32>
}

// Across devices: each of two devices holds half of each input, and the
// partial maxima and minima, zeros of different signs, meet in an
// all-reduce.
func.func @across_devices(%a: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>},
                          %b: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<4xf32> {
  %r = func.call @reduced(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
