// arith.maximumf and arith.minimumf return NaN where either operand is NaN
// (LLVM's maximum and minimum), whichever operand it is. The test writes
// %a = [NaN, 1, 2, ..., 19] and %b = [19, 18, ..., 1, NaN] (f32, and f64
// for the evaluator), so each op meets a NaN as its first operand and as
// its second, and a running maximum meets one first and last.
#v = affine_map<(i) -> (i)>
spmd.mesh @mesh = <["x"=2]>

// The evaluator, both operand orders.
func.func @elementwise(%a: tensor<20xf32>, %b: tensor<20xf32>) -> (tensor<20xf32>, tensor<20xf32>, tensor<20xf32>, tensor<20xf32>) {
  %e = tensor.empty() : tensor<20xf32>
  %r:4 = linalg.generic {indexing_maps = [#v, #v, #v, #v, #v, #v], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<20xf32>, tensor<20xf32>) outs(%e, %e, %e, %e : tensor<20xf32>, tensor<20xf32>, tensor<20xf32>, tensor<20xf32>) {
  ^bb0(%x: f32, %y: f32, %o0: f32, %o1: f32, %o2: f32, %o3: f32):
    %m0 = arith.maximumf %x, %y : f32
    %m1 = arith.maximumf %y, %x : f32
    %m2 = arith.minimumf %x, %y : f32
    %m3 = arith.minimumf %y, %x : f32
    linalg.yield %m0, %m1, %m2, %m3 : f32, f32, f32, f32
  } -> (tensor<20xf32>, tensor<20xf32>, tensor<20xf32>, tensor<20xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<20xf32>, tensor<20xf32>, tensor<20xf32>, tensor<20xf32>
}

func.func @elementwise_f64(%a: tensor<20xf64>, %b: tensor<20xf64>) -> (tensor<20xf64>, tensor<20xf64>) {
  %e = tensor.empty() : tensor<20xf64>
  %r:2 = linalg.generic {indexing_maps = [#v, #v, #v, #v], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<20xf64>, tensor<20xf64>) outs(%e, %e : tensor<20xf64>, tensor<20xf64>) {
  ^bb0(%x: f64, %y: f64, %o0: f64, %o1: f64):
    %m0 = arith.maximumf %x, %y : f64
    %m1 = arith.minimumf %y, %x : f64
    linalg.yield %m0, %m1 : f64, f64
  } -> (tensor<20xf64>, tensor<20xf64>)
  return %r#0, %r#1 : tensor<20xf64>, tensor<20xf64>
}

// The reduction kernel's folds, the running value first and second: each
// result is NaN.
func.func @reduced(%a: tensor<20xf32>, %b: tensor<20xf32>) -> tensor<8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<f32>
  %lo = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %hi = linalg.fill ins(%pinf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r0 = linalg.reduce ins(%a : tensor<20xf32>) outs(%lo : tensor<f32>) dimensions = [0]
    (%x: f32, %o: f32) { %m = arith.maximumf %x, %o : f32  linalg.yield %m : f32 }
  %r1 = linalg.reduce ins(%a : tensor<20xf32>) outs(%lo : tensor<f32>) dimensions = [0]
    (%x: f32, %o: f32) { %m = arith.maximumf %o, %x : f32  linalg.yield %m : f32 }
  %r2 = linalg.reduce ins(%b : tensor<20xf32>) outs(%lo : tensor<f32>) dimensions = [0]
    (%x: f32, %o: f32) { %m = arith.maximumf %x, %o : f32  linalg.yield %m : f32 }
  %r3 = linalg.reduce ins(%b : tensor<20xf32>) outs(%lo : tensor<f32>) dimensions = [0]
    (%x: f32, %o: f32) { %m = arith.maximumf %o, %x : f32  linalg.yield %m : f32 }
  %r4 = linalg.reduce ins(%a : tensor<20xf32>) outs(%hi : tensor<f32>) dimensions = [0]
    (%x: f32, %o: f32) { %m = arith.minimumf %x, %o : f32  linalg.yield %m : f32 }
  %r5 = linalg.reduce ins(%a : tensor<20xf32>) outs(%hi : tensor<f32>) dimensions = [0]
    (%x: f32, %o: f32) { %m = arith.minimumf %o, %x : f32  linalg.yield %m : f32 }
  %r6 = linalg.reduce ins(%b : tensor<20xf32>) outs(%hi : tensor<f32>) dimensions = [0]
    (%x: f32, %o: f32) { %m = arith.minimumf %x, %o : f32  linalg.yield %m : f32 }
  %r7 = linalg.reduce ins(%b : tensor<20xf32>) outs(%hi : tensor<f32>) dimensions = [0]
    (%x: f32, %o: f32) { %m = arith.minimumf %o, %x : f32  linalg.yield %m : f32 }
  %s0 = tensor.extract %r0[] : tensor<f32>
  %s1 = tensor.extract %r1[] : tensor<f32>
  %s2 = tensor.extract %r2[] : tensor<f32>
  %s3 = tensor.extract %r3[] : tensor<f32>
  %s4 = tensor.extract %r4[] : tensor<f32>
  %s5 = tensor.extract %r5[] : tensor<f32>
  %s6 = tensor.extract %r6[] : tensor<f32>
  %s7 = tensor.extract %r7[] : tensor<f32>
  %t = tensor.from_elements %s0, %s1, %s2, %s3, %s4, %s5, %s6, %s7 : tensor<8xf32>
  return %t : tensor<8xf32>
}

// The window kernel: max pooling of %a and %b as 4x5 images, 2x2 windows.
// The first window of %a and the last of %b hold the NaN.
func.func @pooled(%a: tensor<20xf32>, %b: tensor<20xf32>) -> (tensor<1x3x4x1xf32>, tensor<1x3x4x1xf32>) {
  %p = call @pool(%a) : (tensor<20xf32>) -> tensor<1x3x4x1xf32>
  %q = call @pool(%b) : (tensor<20xf32>) -> tensor<1x3x4x1xf32>
  return %p, %q : tensor<1x3x4x1xf32>, tensor<1x3x4x1xf32>
}

func.func private @pool(%a: tensor<20xf32>) -> tensor<1x3x4x1xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %img = tensor.expand_shape %a [[0, 1, 2, 3]] output_shape [1, 4, 5, 1] : tensor<20xf32> into tensor<1x4x5x1xf32>
  %k = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x3x4x1xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x3x4x1xf32>) -> tensor<1x3x4x1xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%img, %k : tensor<1x4x5x1xf32>, tensor<2x2xf32>) outs(%f : tensor<1x3x4x1xf32>) -> tensor<1x3x4x1xf32>
  return %p : tensor<1x3x4x1xf32>
}

// Across devices: each of two devices reduces half of each input, one half
// NaN, the other not; the partial results meet in an all-reduce.
func.func @across_devices(%a: tensor<20xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>},
                          %b: tensor<20xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  %r = func.call @reduced(%a, %b) : (tensor<20xf32>, tensor<20xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
