spmd.mesh @mesh = <["x"=2]>
func.func @main(%a0: tensor<1x512xf16> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %a1: tensor<512x17xf16> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %a2: tensor<17x256xf16> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %a3: tensor<256x256xf16> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %a4: tensor<256x256xf16> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<1x256xf16> {
  %c1 = spmd.sharding_constraint %a0 <@mesh, [{}, {"x"}]> : tensor<1x512xf16>
  %k4 = arith.constant 0.0 : f16
  %e2 = tensor.empty() : tensor<1x17xf16>
  %f3 = linalg.fill ins(%k4 : f16) outs(%e2 : tensor<1x17xf16>) -> tensor<1x17xf16>
  %mm5 = linalg.matmul ins(%c1, %a1 : tensor<1x512xf16>, tensor<512x17xf16>) outs(%f3 : tensor<1x17xf16>) -> tensor<1x17xf16>
  %e6 = tensor.empty() : tensor<1x17xf16>
  %nl7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm5, %mm5 : tensor<1x17xf16>, tensor<1x17xf16>) outs(%e6 : tensor<1x17xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %u0 = arith.constant 0.01 : f16
    %u1 = math.absf %x : f16
    %u2 = arith.addf %u1, %u0 : f16
    %u3 = math.log %u2 : f16
    %u4 = arith.subf %u3, %y : f16
    %u5 = arith.subf %u4, %y : f16
    %u6 = math.tanh %y : f16
    %u7 = arith.constant 1.0 : f16
    %u8 = arith.addf %u6, %u7 : f16
    %u9 = arith.mulf %u5, %u8 : f16
    %u10 = arith.subf %u9, %y : f16
    %u11 = arith.negf %u10 : f16
    %u12 = math.exp %u11 : f16
    %u13 = arith.constant 1.0 : f16
    %u14 = arith.addf %u13, %u12 : f16
    %u15 = arith.divf %u13, %u14 : f16
    %u16 = math.absf %u15 : f16
    %u17 = arith.negf %u16 : f16
    %u18 = math.exp %u17 : f16
    %u19 = math.tanh %u18 : f16
    %u20 = math.exp %u19 : f16
    linalg.yield %u20 : f16
  } -> tensor<1x17xf16>
  %k10 = arith.constant 0.0 : f16
  %e8 = tensor.empty() : tensor<1x256xf16>
  %f9 = linalg.fill ins(%k10 : f16) outs(%e8 : tensor<1x256xf16>) -> tensor<1x256xf16>
  %mm11 = linalg.matmul ins(%nl7, %a2 : tensor<1x17xf16>, tensor<17x256xf16>) outs(%f9 : tensor<1x256xf16>) -> tensor<1x256xf16>
  %e12 = tensor.empty() : tensor<1x256xf16>
  %nl13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm11, %mm11 : tensor<1x256xf16>, tensor<1x256xf16>) outs(%e12 : tensor<1x256xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %u0 = arith.constant 1.0 : f16
    %u1 = math.absf %x : f16
    %u2 = arith.addf %u1, %u0 : f16
    %u3 = math.log %u2 : f16
    %u4 = arith.constant 1.0e-3 : f16
    %u5 = math.absf %u3 : f16
    %u6 = arith.addf %u5, %u4 : f16
    %u7 = math.log %u6 : f16
    %u8 = math.absf %u7 : f16
    %u9 = arith.negf %u8 : f16
    %u10 = math.exp %u9 : f16
    %u11 = arith.constant 1.0 : f16
    %u12 = arith.addf %u10, %u11 : f16
    %u13 = math.log %u12 : f16
    %u14 = arith.constant 0.0 : f16
    %u15 = arith.maximumf %u7, %u14 : f16
    %u16 = arith.addf %u15, %u13 : f16
    linalg.yield %u16 : f16
  } -> tensor<1x256xf16>
  %k16 = arith.constant 0.0 : f16
  %e14 = tensor.empty() : tensor<1x256xf16>
  %f15 = linalg.fill ins(%k16 : f16) outs(%e14 : tensor<1x256xf16>) -> tensor<1x256xf16>
  %mm17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%nl13, %a3 : tensor<1x256xf16>, tensor<256x256xf16>) outs(%f15 : tensor<1x256xf16>) {
  ^bb0(%p: f16, %q: f16, %acc: f16):
    %pq = arith.mulf %p, %q : f16
    %s = arith.addf %acc, %pq : f16
    linalg.yield %s : f16
  } -> tensor<1x256xf16>
  %e18 = tensor.empty() : tensor<1x256xf16>
  %nl19 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm17, %mm17 : tensor<1x256xf16>, tensor<1x256xf16>) outs(%e18 : tensor<1x256xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %u0 = arith.subf %x, %y : f16
    %u1 = math.tanh %u0 : f16
    linalg.yield %u1 : f16
  } -> tensor<1x256xf16>
  %e20 = tensor.empty() : tensor<1x256xf16>
  %nl21 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl19, %mm17 : tensor<1x256xf16>, tensor<1x256xf16>) outs(%e20 : tensor<1x256xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %u0 = math.absf %x : f16
    %u1 = arith.constant 0.5 : f16
    %u2 = arith.addf %u0, %u1 : f16
    %u3 = math.sqrt %u2 : f16
    %u4 = arith.subf %u3, %y : f16
    linalg.yield %u4 : f16
  } -> tensor<1x256xf16>
  %e22 = tensor.empty() : tensor<1x256xf16>
  %nl23 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl21, %mm17 : tensor<1x256xf16>, tensor<1x256xf16>) outs(%e22 : tensor<1x256xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %u0 = math.absf %x : f16
    %u1 = arith.constant 0.5 : f16
    %u2 = arith.addf %u0, %u1 : f16
    %u3 = math.sqrt %u2 : f16
    linalg.yield %u3 : f16
  } -> tensor<1x256xf16>
  %lbloop24 = arith.constant 0 : index
  %ubloop24 = arith.constant 5 : index
  %stloop24 = arith.constant 1 : index
  %loop24 = scf.for %ivloop24 = %lbloop24 to %ubloop24 step %stloop24 iter_args(%hloop24 = %nl23) -> (tensor<1x256xf16>) {
  %c25 = spmd.sharding_constraint %hloop24 <@mesh, [{}, {"x"}]> : tensor<1x256xf16>
  %k28 = arith.constant 0.0 : f16
  %e26 = tensor.empty() : tensor<1x256xf16>
  %f27 = linalg.fill ins(%k28 : f16) outs(%e26 : tensor<1x256xf16>) -> tensor<1x256xf16>
  %mm29 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%c25, %a4 : tensor<1x256xf16>, tensor<256x256xf16>) outs(%f27 : tensor<1x256xf16>) {
  ^bb0(%p: f16, %q: f16, %acc: f16):
    %pq = arith.mulf %p, %q : f16
    %s = arith.addf %acc, %pq : f16
    linalg.yield %s : f16
  } -> tensor<1x256xf16>
  %e30 = tensor.empty() : tensor<1x256xf16>
  %nl31 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm29, %nl23 : tensor<1x256xf16>, tensor<1x256xf16>) outs(%e30 : tensor<1x256xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %u0 = arith.constant 0.5 : f16
    %u1 = arith.constant 1.0 : f16
    %u2 = arith.constant 0.70710678 : f16
    %u3 = arith.mulf %x, %u2 : f16
    %u4 = math.erf %u3 : f16
    %u5 = arith.mulf %x, %u0 : f16
    %u6 = arith.addf %u1, %u4 : f16
    %u7 = arith.mulf %u5, %u6 : f16
    linalg.yield %u7 : f16
  } -> tensor<1x256xf16>
  %e32 = tensor.empty() : tensor<1x256xf16>
  %nl33 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl31, %nl23 : tensor<1x256xf16>, tensor<1x256xf16>) outs(%e32 : tensor<1x256xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %u0 = arith.constant 0.5 : f16
    %u1 = arith.constant 1.0 : f16
    %u2 = arith.constant 0.70710678 : f16
    %u3 = arith.mulf %x, %u2 : f16
    %u4 = math.erf %u3 : f16
    %u5 = arith.mulf %x, %u0 : f16
    %u6 = arith.addf %u1, %u4 : f16
    %u7 = arith.mulf %u5, %u6 : f16
    linalg.yield %u7 : f16
  } -> tensor<1x256xf16>
  scf.yield %nl33 : tensor<1x256xf16>
  }
  return %loop24 : tensor<1x256xf16>
}
