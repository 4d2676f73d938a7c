// Programs the executor runs fused (spmd-fuse-elementwise), each with a
// `_ref` twin whose intermediate is also returned, so nothing fuses.
#t = affine_map<(d0, d1) -> (d1, d0)>
#i = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// A torch-mlir linear layer with bias and ReLU.
func.func @linear(%x: tensor<37x53xf32>, %w: tensor<29x53xf32>, %b: tensor<29xf32>) -> tensor<37x29xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<53x29xf32>
  %wt = linalg.generic {indexing_maps = [#t, #i], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<29x53xf32>) outs(%et : tensor<53x29xf32>) {
  ^bb0(%p: f32, %o: f32):
    linalg.yield %p : f32
  } -> tensor<53x29xf32>
  %e = tensor.empty() : tensor<37x29xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<37x29xf32>) -> tensor<37x29xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<37x53xf32>, tensor<53x29xf32>)
                     outs(%f : tensor<37x29xf32>) -> tensor<37x29xf32>
  %half = arith.constant dense<0.5> : tensor<37x29xf32>
  %s = linalg.generic {indexing_maps = [#i, #row, #i, #i], iterator_types = ["parallel", "parallel"]}
      ins(%y, %b, %half : tensor<37x29xf32>, tensor<29xf32>, tensor<37x29xf32>) outs(%e : tensor<37x29xf32>) {
  ^bb0(%p: f32, %q: f32, %h: f32, %o: f32):
    %a = arith.addf %p, %q : f32
    %m = arith.mulf %a, %h : f32
    linalg.yield %m : f32
  } -> tensor<37x29xf32>
  %r = linalg.generic {indexing_maps = [#i, #i], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<37x29xf32>) outs(%e : tensor<37x29xf32>) {
  ^bb0(%p: f32, %o: f32):
    %c = arith.cmpf ugt, %p, %zero : f32
    %v = arith.select %c, %p, %zero : f32
    linalg.yield %v : f32
  } -> tensor<37x29xf32>
  return %r : tensor<37x29xf32>
}

func.func @linear_ref(%x: tensor<37x53xf32>, %w: tensor<29x53xf32>, %b: tensor<29xf32>)
    -> (tensor<37x29xf32>, tensor<53x29xf32>, tensor<37x29xf32>) {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<53x29xf32>
  %wt = linalg.generic {indexing_maps = [#t, #i], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<29x53xf32>) outs(%et : tensor<53x29xf32>) {
  ^bb0(%p: f32, %o: f32):
    linalg.yield %p : f32
  } -> tensor<53x29xf32>
  %e = tensor.empty() : tensor<37x29xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<37x29xf32>) -> tensor<37x29xf32>
  // Through the evaluator: %x read by tensor.extract at the loop indices,
  // so the body is no multiply-add and no GEMM kernel takes it.
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %wt : tensor<37x53xf32>, tensor<53x29xf32>) outs(%f : tensor<37x29xf32>) {
  ^bb0(%xa: f32, %wb: f32, %acc: f32):
    %im = linalg.index 0 : index
    %ik = linalg.index 2 : index
    %xe = tensor.extract %x[%im, %ik] : tensor<37x53xf32>
    %p = arith.mulf %xe, %wb : f32
    %s2 = arith.addf %acc, %p : f32
    linalg.yield %s2 : f32
  } -> tensor<37x29xf32>
  %half = arith.constant dense<0.5> : tensor<37x29xf32>
  %s = linalg.generic {indexing_maps = [#i, #row, #i, #i], iterator_types = ["parallel", "parallel"]}
      ins(%y, %b, %half : tensor<37x29xf32>, tensor<29xf32>, tensor<37x29xf32>) outs(%e : tensor<37x29xf32>) {
  ^bb0(%p: f32, %q: f32, %h: f32, %o: f32):
    %a = arith.addf %p, %q : f32
    %m = arith.mulf %a, %h : f32
    linalg.yield %m : f32
  } -> tensor<37x29xf32>
  %r = linalg.generic {indexing_maps = [#i, #i], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<37x29xf32>) outs(%e : tensor<37x29xf32>) {
  ^bb0(%p: f32, %o: f32):
    %c = arith.cmpf ugt, %p, %zero : f32
    %v = arith.select %c, %p, %zero : f32
    linalg.yield %v : f32
  } -> tensor<37x29xf32>
  return %r, %wt, %s : tensor<37x29xf32>, tensor<53x29xf32>, tensor<37x29xf32>
}
