spmd.mesh @mesh = <["x"=3]>
func.func @main(%x: tensor<1x128xbf16> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %w: tensor<128x256xbf16> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<1x256xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<1x256xbf16>
  %f = linalg.fill ins(%zero : bf16) outs(%e : tensor<1x256xbf16>) -> tensor<1x256xbf16>
  %mm = linalg.matmul ins(%x, %w : tensor<1x128xbf16>, tensor<128x256xbf16>) outs(%f : tensor<1x256xbf16>) -> tensor<1x256xbf16>
  %nl = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<1x256xbf16>) outs(%e : tensor<1x256xbf16>) {
  ^bb0(%v: bf16, %o: bf16):
    %c = arith.constant 0.01 : bf16
    %sq = arith.mulf %v, %v : bf16
    %den = arith.addf %sq, %c : bf16
    %q = arith.divf %v, %den : bf16
    %t = math.tanh %q : bf16
    %ex = math.exp %t : bf16
    linalg.yield %ex : bf16
  } -> tensor<1x256xbf16>
  return %nl : tensor<1x256xbf16>
}
