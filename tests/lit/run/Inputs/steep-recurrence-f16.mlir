spmd.mesh @mesh = <["x"=2]>
func.func @main(%h: tensor<3x128xf16>, %w: tensor<128x128xf16> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<3x128xf16> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  %loop = scf.for %i = %c0 to %c3 step %c1 iter_args(%x = %h) -> (tensor<3x128xf16>) {
    %e = tensor.empty() : tensor<3x128xf16>
    %f = linalg.fill ins(%zero : f16) outs(%e : tensor<3x128xf16>) -> tensor<3x128xf16>
    %mm = linalg.matmul ins(%x, %w : tensor<3x128xf16>, tensor<128x128xf16>) outs(%f : tensor<3x128xf16>) -> tensor<3x128xf16>
    %nl = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%mm : tensor<3x128xf16>) outs(%e : tensor<3x128xf16>) {
    ^bb0(%v: f16, %o: f16):
      %c = arith.constant 0.01 : f16
      %sq = arith.mulf %v, %v : f16
      %den = arith.addf %sq, %c : f16
      %q = arith.divf %v, %den : f16
      %t = math.tanh %q : f16
      %qt = arith.mulf %q, %t : f16
      %t1 = math.tanh %qt : f16
      %e1 = math.exp %t1 : f16
      %t2 = math.tanh %e1 : f16
      %e2 = math.exp %t2 : f16
      linalg.yield %e2 : f16
    } -> tensor<3x128xf16>
    scf.yield %nl : tensor<3x128xf16>
  }
  return %loop : tensor<3x128xf16>
}
