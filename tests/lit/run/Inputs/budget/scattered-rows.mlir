// A contraction whose A holds its rows m1 and m2 apart (k between them):
// the GEMM reads A through a dense copy, which the plan prices.
spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<16x64x32xf32>, %b: tensor<64x48xf32>) -> tensor<16x32x48xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32x48xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x32x48xf32>) -> tensor<16x32x48xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m1, m2, n, k) -> (m1, k, m2)>, affine_map<(m1, m2, n, k) -> (k, n)>, affine_map<(m1, m2, n, k) -> (m1, m2, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<16x64x32xf32>, tensor<64x48xf32>) outs(%f : tensor<16x32x48xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32x48xf32>
  return %r : tensor<16x32x48xf32>
}
