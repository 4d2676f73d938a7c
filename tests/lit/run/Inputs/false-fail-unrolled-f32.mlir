spmd.mesh @mesh = <["x"=2]>
func.func @main(%a0: tensor<1x300xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %a1: tensor<300x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %a2: tensor<256x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<1x256xf32> {
  %c1 = spmd.sharding_constraint %a0 <@mesh, [{}, {"x"}]> : tensor<1x300xf32>
  %k4 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<1x256xf32>
  %f3 = linalg.fill ins(%k4 : f32) outs(%e2 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %mm5 = linalg.matmul ins(%c1, %a1 : tensor<1x300xf32>, tensor<300x256xf32>) outs(%f3 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %e6 = tensor.empty() : tensor<1x256xf32>
  %nl7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm5, %mm5 : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e6 : tensor<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = arith.constant 0.5 : f32
    %u1 = arith.constant 1.0 : f32
    %u2 = arith.constant 0.70710678 : f32
    %u3 = arith.mulf %x, %u2 : f32
    %u4 = math.erf %u3 : f32
    %u5 = arith.mulf %x, %u0 : f32
    %u6 = arith.addf %u1, %u4 : f32
    %u7 = arith.mulf %u5, %u6 : f32
    linalg.yield %u7 : f32
  } -> tensor<1x256xf32>
  %e8 = tensor.empty() : tensor<1x256xf32>
  %nl9 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl7, %mm5 : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e8 : tensor<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = arith.constant 1.0 : f32
    %u1 = math.absf %x : f32
    %u2 = arith.addf %u1, %u0 : f32
    %u3 = math.log %u2 : f32
    %u4 = math.absf %u3 : f32
    %u5 = arith.negf %u4 : f32
    %u6 = math.exp %u5 : f32
    %u7 = math.absf %u6 : f32
    %u8 = arith.constant 0.5 : f32
    %u9 = arith.addf %u7, %u8 : f32
    %u10 = math.sqrt %u9 : f32
    %u11 = arith.subf %u10, %y : f32
    linalg.yield %u11 : f32
  } -> tensor<1x256xf32>
  %e10 = tensor.empty() : tensor<1x256xf32>
  %nl11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl9, %mm5 : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e10 : tensor<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.absf %x : f32
    %u1 = arith.constant 0.5 : f32
    %u2 = arith.addf %u0, %u1 : f32
    %u3 = math.sqrt %u2 : f32
    %u4 = math.absf %u3 : f32
    %u5 = arith.negf %u4 : f32
    %u6 = math.exp %u5 : f32
    %u7 = math.absf %u6 : f32
    %u8 = arith.constant 0.5 : f32
    %u9 = arith.addf %u7, %u8 : f32
    %u10 = math.sqrt %u9 : f32
    linalg.yield %u10 : f32
  } -> tensor<1x256xf32>
  %k15_u0 = arith.constant 0.0 : f32
  %e13_u0 = tensor.empty() : tensor<1x256xf32>
  %f14_u0 = linalg.fill ins(%k15_u0 : f32) outs(%e13_u0 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %mm16_u0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%nl11, %a2 : tensor<1x256xf32>, tensor<256x256xf32>) outs(%f14_u0 : tensor<1x256xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  } -> tensor<1x256xf32>
  %e17_u0 = tensor.empty() : tensor<1x256xf32>
  %nl18_u0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm16_u0, %nl11 : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e17_u0 : tensor<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0_u0 = math.absf %x : f32
    %u1_u0 = arith.negf %u0_u0 : f32
    %u2_u0 = math.exp %u1_u0 : f32
    %u3_u0 = math.tanh %u2_u0 : f32
    %u4_u0 = arith.mulf %u2_u0, %u3_u0 : f32
    linalg.yield %u4_u0 : f32
  } -> tensor<1x256xf32>
  %e19_u0 = tensor.empty() : tensor<1x256xf32>
  %nl20_u0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl18_u0, %nl11 : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e19_u0 : tensor<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0_u0 = math.tanh %y : f32
    %u1_u0 = arith.constant 1.0 : f32
    %u2_u0 = arith.addf %u0_u0, %u1_u0 : f32
    %u3_u0 = arith.mulf %x, %u2_u0 : f32
    %u4_u0 = math.tanh %u3_u0 : f32
    %u5_u0 = math.exp %u4_u0 : f32
    linalg.yield %u5_u0 : f32
  } -> tensor<1x256xf32>
  %k15_u1 = arith.constant 0.0 : f32
  %e13_u1 = tensor.empty() : tensor<1x256xf32>
  %f14_u1 = linalg.fill ins(%k15_u1 : f32) outs(%e13_u1 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %mm16_u1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%nl20_u0, %a2 : tensor<1x256xf32>, tensor<256x256xf32>) outs(%f14_u1 : tensor<1x256xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  } -> tensor<1x256xf32>
  %e17_u1 = tensor.empty() : tensor<1x256xf32>
  %nl18_u1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm16_u1, %nl11 : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e17_u1 : tensor<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0_u1 = math.absf %x : f32
    %u1_u1 = arith.negf %u0_u1 : f32
    %u2_u1 = math.exp %u1_u1 : f32
    %u3_u1 = math.tanh %u2_u1 : f32
    %u4_u1 = arith.mulf %u2_u1, %u3_u1 : f32
    linalg.yield %u4_u1 : f32
  } -> tensor<1x256xf32>
  %e19_u1 = tensor.empty() : tensor<1x256xf32>
  %nl20_u1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl18_u1, %nl11 : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e19_u1 : tensor<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0_u1 = math.tanh %y : f32
    %u1_u1 = arith.constant 1.0 : f32
    %u2_u1 = arith.addf %u0_u1, %u1_u1 : f32
    %u3_u1 = arith.mulf %x, %u2_u1 : f32
    %u4_u1 = math.tanh %u3_u1 : f32
    %u5_u1 = math.exp %u4_u1 : f32
    linalg.yield %u5_u1 : f32
  } -> tensor<1x256xf32>
  %k15_u2 = arith.constant 0.0 : f32
  %e13_u2 = tensor.empty() : tensor<1x256xf32>
  %f14_u2 = linalg.fill ins(%k15_u2 : f32) outs(%e13_u2 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %mm16_u2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%nl20_u1, %a2 : tensor<1x256xf32>, tensor<256x256xf32>) outs(%f14_u2 : tensor<1x256xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  } -> tensor<1x256xf32>
  %e17_u2 = tensor.empty() : tensor<1x256xf32>
  %nl18_u2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm16_u2, %nl11 : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e17_u2 : tensor<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0_u2 = math.absf %x : f32
    %u1_u2 = arith.negf %u0_u2 : f32
    %u2_u2 = math.exp %u1_u2 : f32
    %u3_u2 = math.tanh %u2_u2 : f32
    %u4_u2 = arith.mulf %u2_u2, %u3_u2 : f32
    linalg.yield %u4_u2 : f32
  } -> tensor<1x256xf32>
  %e19_u2 = tensor.empty() : tensor<1x256xf32>
  %nl20_u2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl18_u2, %nl11 : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e19_u2 : tensor<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0_u2 = math.tanh %y : f32
    %u1_u2 = arith.constant 1.0 : f32
    %u2_u2 = arith.addf %u0_u2, %u1_u2 : f32
    %u3_u2 = arith.mulf %x, %u2_u2 : f32
    %u4_u2 = math.tanh %u3_u2 : f32
    %u5_u2 = math.exp %u4_u2 : f32
    linalg.yield %u5_u2 : f32
  } -> tensor<1x256xf32>
  %k15_u3 = arith.constant 0.0 : f32
  %e13_u3 = tensor.empty() : tensor<1x256xf32>
  %f14_u3 = linalg.fill ins(%k15_u3 : f32) outs(%e13_u3 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %mm16_u3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%nl20_u2, %a2 : tensor<1x256xf32>, tensor<256x256xf32>) outs(%f14_u3 : tensor<1x256xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  } -> tensor<1x256xf32>
  %e17_u3 = tensor.empty() : tensor<1x256xf32>
  %nl18_u3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm16_u3, %nl11 : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e17_u3 : tensor<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0_u3 = math.absf %x : f32
    %u1_u3 = arith.negf %u0_u3 : f32
    %u2_u3 = math.exp %u1_u3 : f32
    %u3_u3 = math.tanh %u2_u3 : f32
    %u4_u3 = arith.mulf %u2_u3, %u3_u3 : f32
    linalg.yield %u4_u3 : f32
  } -> tensor<1x256xf32>
  %e19_u3 = tensor.empty() : tensor<1x256xf32>
  %nl20_u3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl18_u3, %nl11 : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e19_u3 : tensor<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0_u3 = math.tanh %y : f32
    %u1_u3 = arith.constant 1.0 : f32
    %u2_u3 = arith.addf %u0_u3, %u1_u3 : f32
    %u3_u3 = arith.mulf %x, %u2_u3 : f32
    %u4_u3 = math.tanh %u3_u3 : f32
    %u5_u3 = math.exp %u4_u3 : f32
    linalg.yield %u5_u3 : f32
  } -> tensor<1x256xf32>
  %k15_u4 = arith.constant 0.0 : f32
  %e13_u4 = tensor.empty() : tensor<1x256xf32>
  %f14_u4 = linalg.fill ins(%k15_u4 : f32) outs(%e13_u4 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %mm16_u4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%nl20_u3, %a2 : tensor<1x256xf32>, tensor<256x256xf32>) outs(%f14_u4 : tensor<1x256xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  } -> tensor<1x256xf32>
  %e17_u4 = tensor.empty() : tensor<1x256xf32>
  %nl18_u4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm16_u4, %nl11 : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e17_u4 : tensor<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0_u4 = math.absf %x : f32
    %u1_u4 = arith.negf %u0_u4 : f32
    %u2_u4 = math.exp %u1_u4 : f32
    %u3_u4 = math.tanh %u2_u4 : f32
    %u4_u4 = arith.mulf %u2_u4, %u3_u4 : f32
    linalg.yield %u4_u4 : f32
  } -> tensor<1x256xf32>
  %e19_u4 = tensor.empty() : tensor<1x256xf32>
  %nl20_u4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl18_u4, %nl11 : tensor<1x256xf32>, tensor<1x256xf32>) outs(%e19_u4 : tensor<1x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0_u4 = math.tanh %y : f32
    %u1_u4 = arith.constant 1.0 : f32
    %u2_u4 = arith.addf %u0_u4, %u1_u4 : f32
    %u3_u4 = arith.mulf %x, %u2_u4 : f32
    %u4_u4 = math.tanh %u3_u4 : f32
    %u5_u4 = math.exp %u4_u4 : f32
    linalg.yield %u5_u4 : f32
  } -> tensor<1x256xf32>
  return %nl20_u4 : tensor<1x256xf32>
}
