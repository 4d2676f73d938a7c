spmd.mesh @mesh = <["x"=2, "y"=1]>
func.func @main(%a0: tensor<1x300xf64> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %a1: tensor<300x128xf64> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %a2: tensor<128x128xf64>, %a3: tensor<128x128xf64>) -> tensor<1x128xf64> {
  %c1 = spmd.sharding_constraint %a0 <@mesh, [{}, {"x"}]> : tensor<1x300xf64>
  %k4 = arith.constant 0.0 : f64
  %e2 = tensor.empty() : tensor<1x128xf64>
  %f3 = linalg.fill ins(%k4 : f64) outs(%e2 : tensor<1x128xf64>) -> tensor<1x128xf64>
  %mm5 = linalg.matmul ins(%c1, %a1 : tensor<1x300xf64>, tensor<300x128xf64>) outs(%f3 : tensor<1x128xf64>) -> tensor<1x128xf64>
  %e6 = tensor.empty() : tensor<1x128xf64>
  %nl7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm5, %mm5 : tensor<1x128xf64>, tensor<1x128xf64>) outs(%e6 : tensor<1x128xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %u0 = arith.constant 0.01 : f64
    %u1 = math.absf %x : f64
    %u2 = arith.addf %u1, %u0 : f64
    %u3 = math.log %u2 : f64
    %u4 = math.tanh %y : f64
    %u5 = arith.constant 2.0 : f64
    %u6 = arith.addf %u4, %u5 : f64
    %u7 = arith.divf %u3, %u6 : f64
    %u8 = math.tanh %u7 : f64
    %u9 = arith.mulf %u7, %u8 : f64
    %u10 = math.absf %u9 : f64
    %u11 = arith.negf %u10 : f64
    %u12 = math.exp %u11 : f64
    %u13 = arith.constant 1.0 : f64
    %u14 = arith.addf %u12, %u13 : f64
    %u15 = math.log %u14 : f64
    %u16 = arith.constant 0.0 : f64
    %u17 = arith.maximumf %u9, %u16 : f64
    %u18 = arith.addf %u17, %u15 : f64
    %u19 = math.tanh %y : f64
    %u20 = arith.constant 1.0 : f64
    %u21 = arith.addf %u19, %u20 : f64
    %u22 = arith.mulf %u18, %u21 : f64
    %u23 = math.tanh %u22 : f64
    %u24 = arith.mulf %u22, %u23 : f64
    %u25 = math.tanh %u24 : f64
    %u26 = arith.mulf %u24, %u25 : f64
    %u27 = math.tanh %u26 : f64
    %u28 = arith.mulf %u26, %u27 : f64
    linalg.yield %u28 : f64
  } -> tensor<1x128xf64>
  %c8 = spmd.sharding_constraint %nl7 <@mesh, [{}, {"x"}]> : tensor<1x128xf64>
  %k11 = arith.constant 0.0 : f64
  %e9 = tensor.empty() : tensor<1xf64>
  %f10 = linalg.fill ins(%k11 : f64) outs(%e9 : tensor<1xf64>) -> tensor<1xf64>
  %red12 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%c8 : tensor<1x128xf64>) outs(%f10 : tensor<1xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %r = arith.addf %acc, %x : f64
    linalg.yield %r : f64
  } -> tensor<1xf64>
  %e13 = tensor.empty() : tensor<1x128xf64>
  %rw14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl7, %red12 : tensor<1x128xf64>, tensor<1xf64>) outs(%e13 : tensor<1x128xf64>) {
  ^bb0(%x: f64, %r: f64, %o: f64):
    %inv = arith.constant 0.0078125 : f64
    %mean = arith.mulf %r, %inv : f64
    %d = arith.subf %x, %mean : f64
    linalg.yield %d : f64
  } -> tensor<1x128xf64>
  %c15 = spmd.sharding_constraint %rw14 <@mesh, [{}, {"x"}]> : tensor<1x128xf64>
  %k18 = arith.constant 0.0 : f64
  %e16 = tensor.empty() : tensor<1xf64>
  %f17 = linalg.fill ins(%k18 : f64) outs(%e16 : tensor<1xf64>) -> tensor<1xf64>
  %red19 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%c15 : tensor<1x128xf64>) outs(%f17 : tensor<1xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %px = arith.mulf %x, %x : f64
    %r = arith.addf %acc, %px : f64
    linalg.yield %r : f64
  } -> tensor<1xf64>
  %e20 = tensor.empty() : tensor<1x128xf64>
  %rw21 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%rw14, %red19 : tensor<1x128xf64>, tensor<1xf64>) outs(%e20 : tensor<1x128xf64>) {
  ^bb0(%x: f64, %r: f64, %o: f64):
    %inv = arith.constant 0.0078125 : f64
    %var = arith.mulf %r, %inv : f64
    %eps = arith.constant 1.0e-3 : f64
    %ve = arith.addf %var, %eps : f64
    %s = math.rsqrt %ve : f64
    %y = arith.mulf %x, %s : f64
    linalg.yield %y : f64
  } -> tensor<1x128xf64>
  %e22 = tensor.empty() : tensor<1x128xf64>
  %nl23 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%rw21, %rw21 : tensor<1x128xf64>, tensor<1x128xf64>) outs(%e22 : tensor<1x128xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %u0 = arith.constant 1.0e-3 : f64
    %u1 = math.absf %x : f64
    %u2 = arith.addf %u1, %u0 : f64
    %u3 = math.log %u2 : f64
    %u4 = arith.negf %u3 : f64
    %u5 = math.exp %u4 : f64
    %u6 = arith.constant 1.0 : f64
    %u7 = arith.addf %u6, %u5 : f64
    %u8 = arith.divf %u6, %u7 : f64
    %u9 = arith.constant 0.5 : f64
    %u10 = math.absf %u8 : f64
    %u11 = arith.addf %u10, %u9 : f64
    %u12 = math.log %u11 : f64
    %u13 = math.tanh %u12 : f64
    %u14 = arith.mulf %u12, %u13 : f64
    linalg.yield %u14 : f64
  } -> tensor<1x128xf64>
  %e24 = tensor.empty() : tensor<1x128xf64>
  %nl25 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl23, %rw21 : tensor<1x128xf64>, tensor<1x128xf64>) outs(%e24 : tensor<1x128xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %u0 = math.absf %x : f64
    %u1 = arith.constant 0.5 : f64
    %u2 = arith.addf %u0, %u1 : f64
    %u3 = math.sqrt %u2 : f64
    linalg.yield %u3 : f64
  } -> tensor<1x128xf64>
  %e26 = tensor.empty() : tensor<1x128xf64>
  %nl27 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl25, %rw21 : tensor<1x128xf64>, tensor<1x128xf64>) outs(%e26 : tensor<1x128xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %u0 = arith.subf %x, %y : f64
    %u1 = arith.constant 1.0 : f64
    %u2 = math.absf %u0 : f64
    %u3 = arith.addf %u2, %u1 : f64
    %u4 = math.log %u3 : f64
    %u5 = arith.constant 1.0 : f64
    %u6 = arith.mulf %u4, %u4 : f64
    %u7 = arith.addf %u6, %u5 : f64
    %u8 = arith.divf %u4, %u7 : f64
    linalg.yield %u8 : f64
  } -> tensor<1x128xf64>
  %c28 = spmd.sharding_constraint %nl27 <@mesh, [{}, {"x"}]> : tensor<1x128xf64>
  %k31 = arith.constant 0.0 : f64
  %e29 = tensor.empty() : tensor<1x128xf64>
  %f30 = linalg.fill ins(%k31 : f64) outs(%e29 : tensor<1x128xf64>) -> tensor<1x128xf64>
  %mm32 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%c28, %a2 : tensor<1x128xf64>, tensor<128x128xf64>) outs(%f30 : tensor<1x128xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %pq = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %pq : f64
    linalg.yield %s : f64
  } -> tensor<1x128xf64>
  %e33 = tensor.empty() : tensor<1x128xf64>
  %nl34 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm32, %mm32 : tensor<1x128xf64>, tensor<1x128xf64>) outs(%e33 : tensor<1x128xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %u0 = math.absf %x : f64
    %u1 = arith.negf %u0 : f64
    %u2 = math.exp %u1 : f64
    %u3 = arith.constant 1.0e-3 : f64
    %u4 = math.absf %u2 : f64
    %u5 = arith.addf %u4, %u3 : f64
    %u6 = math.log %u5 : f64
    %u7 = math.tanh %y : f64
    %u8 = arith.constant 2.0 : f64
    %u9 = arith.addf %u7, %u8 : f64
    %u10 = arith.divf %u6, %u9 : f64
    %u11 = math.tanh %u10 : f64
    %u12 = math.tanh %u11 : f64
    %u13 = math.exp %u12 : f64
    %u14 = arith.negf %u13 : f64
    %u15 = math.exp %u14 : f64
    %u16 = arith.constant 1.0 : f64
    %u17 = arith.addf %u16, %u15 : f64
    %u18 = arith.divf %u16, %u17 : f64
    linalg.yield %u18 : f64
  } -> tensor<1x128xf64>
  %lbloop35 = arith.constant 0 : index
  %ubloop35 = arith.constant 6 : index
  %stloop35 = arith.constant 1 : index
  %loop35 = scf.for %ivloop35 = %lbloop35 to %ubloop35 step %stloop35 iter_args(%hloop35 = %nl34) -> (tensor<1x128xf64>) {
  %c36 = spmd.sharding_constraint %hloop35 <@mesh, [{}, {"x"}]> : tensor<1x128xf64>
  %k39 = arith.constant 0.0 : f64
  %e37 = tensor.empty() : tensor<1x128xf64>
  %f38 = linalg.fill ins(%k39 : f64) outs(%e37 : tensor<1x128xf64>) -> tensor<1x128xf64>
  %mm40 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%c36, %a3 : tensor<1x128xf64>, tensor<128x128xf64>) outs(%f38 : tensor<1x128xf64>) {
  ^bb0(%p: f64, %q: f64, %acc: f64):
    %pq = arith.mulf %p, %q : f64
    %s = arith.addf %acc, %pq : f64
    linalg.yield %s : f64
  } -> tensor<1x128xf64>
  %e41 = tensor.empty() : tensor<1x128xf64>
  %nl42 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm40, %nl34 : tensor<1x128xf64>, tensor<1x128xf64>) outs(%e41 : tensor<1x128xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %u0 = math.absf %x : f64
    %u1 = arith.negf %u0 : f64
    %u2 = math.exp %u1 : f64
    %u3 = arith.constant 0.5 : f64
    %u4 = arith.constant 1.0 : f64
    %u5 = arith.constant 0.70710678 : f64
    %u6 = arith.mulf %u2, %u5 : f64
    %u7 = math.erf %u6 : f64
    %u8 = arith.mulf %u2, %u3 : f64
    %u9 = arith.addf %u4, %u7 : f64
    %u10 = arith.mulf %u8, %u9 : f64
    %u11 = arith.constant 1.0e-3 : f64
    %u12 = math.absf %u10 : f64
    %u13 = arith.addf %u12, %u11 : f64
    %u14 = math.log %u13 : f64
    %u15 = math.absf %u14 : f64
    %u16 = arith.negf %u15 : f64
    %u17 = math.exp %u16 : f64
    %u18 = math.tanh %u17 : f64
    %u19 = arith.mulf %u17, %u18 : f64
    linalg.yield %u19 : f64
  } -> tensor<1x128xf64>
  scf.yield %nl42 : tensor<1x128xf64>
  }
  return %loop35 : tensor<1x128xf64>
}
