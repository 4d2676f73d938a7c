// Attention over the whole sequence, softmax(q k^T) v: what
// examples/manual/ring_attention.mlir computes block by block.
#qk = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
       affine_map<(m, n, k) -> (m, n)>]
#rows = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m)>]
#byrow = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m)>,
          affine_map<(m, n) -> (m, n)>]

func.func @attention(%q: tensor<64x16xf32>, %k: tensor<64x16xf32>,
                     %v: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %es = tensor.empty() : tensor<64x64xf32>
  %er = tensor.empty() : tensor<64xf32>
  %eo = tensor.empty() : tensor<64x16xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%es : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = linalg.generic {indexing_maps = #qk, iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<64x16xf32>, tensor<64x16xf32>) outs(%sz : tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %c, %p : f32
    linalg.yield %t : f32
  } -> tensor<64x64xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %m = linalg.generic {indexing_maps = #rows, iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<64x64xf32>) outs(%m0 : tensor<64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.maximumf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %p = linalg.generic {indexing_maps = #byrow, iterator_types = ["parallel", "parallel"]}
      ins(%s, %m : tensor<64x64xf32>, tensor<64xf32>) outs(%es : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %d = arith.subf %x, %y : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<64x64xf32>
  %l0 = linalg.fill ins(%zero : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %l = linalg.generic {indexing_maps = #rows, iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<64x64xf32>) outs(%l0 : tensor<64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%eo : tensor<64x16xf32>) -> tensor<64x16xf32>
  %pv = linalg.matmul ins(%p, %v : tensor<64x64xf32>, tensor<64x16xf32>)
                      outs(%oz : tensor<64x16xf32>) -> tensor<64x16xf32>
  %o = linalg.generic {indexing_maps = #byrow, iterator_types = ["parallel", "parallel"]}
      ins(%pv, %l : tensor<64x16xf32>, tensor<64xf32>) outs(%eo : tensor<64x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %t = arith.divf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}
