// (1 + 1e8) - 1e8 in each float type: f32 rounds 1e8 + 1 to 1e8 (its
// spacing there is 8), so the sum is 0; f64 keeps the 1. The 1 is made
// from the input (0 * |x| + 1) so that nothing folds it away before
// the kernels run.
#map = affine_map<(i) -> (i)>

func.func @generic_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %big = arith.constant 1.0e8 : f32
    %a = math.absf %v : f32
    %z = arith.mulf %a, %zero : f32
    %u = arith.addf %z, %one : f32
    %s = arith.addf %u, %big : f32
    %d = arith.subf %s, %big : f32
    linalg.yield %d : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @generic_f64(%x: tensor<4xf64>) -> tensor<4xf64> {
  %e = tensor.empty() : tensor<4xf64>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%v: f64, %o: f64):
    %zero = arith.constant 0.0 : f64
    %one = arith.constant 1.0 : f64
    %big = arith.constant 1.0e8 : f64
    %a = math.absf %v : f64
    %z = arith.mulf %a, %zero : f64
    %u = arith.addf %z, %one : f64
    %s = arith.addf %u, %big : f64
    %d = arith.subf %s, %big : f64
    linalg.yield %d : f64
  } -> tensor<4xf64>
  return %r : tensor<4xf64>
}

// The same on whole tensors: arith ops of tensors, and on scalars.
func.func @tensor_ops_f32(%x: tensor<4xf32>) -> (tensor<4xf32>, f32) {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %big = arith.constant dense<1.0e8> : tensor<4xf32>
  %a = math.absf %x : tensor<4xf32>
  %z = arith.mulf %a, %zero : tensor<4xf32>
  %u = arith.addf %z, %one : tensor<4xf32>
  %s = arith.addf %u, %big : tensor<4xf32>
  %d = arith.subf %s, %big : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %u[%c0] : tensor<4xf32>
  %bigs = arith.constant 1.0e8 : f32
  %ss = arith.addf %e, %bigs : f32
  %ds = arith.subf %ss, %bigs : f32
  return %d, %ds : tensor<4xf32>, f32
}
