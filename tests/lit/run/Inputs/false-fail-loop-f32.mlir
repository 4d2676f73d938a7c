spmd.mesh @mesh = <["x"=2, "y"=3]>
func.func @main(%a0: tensor<3x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x", "y"}]>}, %a1: tensor<256x17xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}, %a2: tensor<17x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}, %a3: tensor<128x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<3x128xf32> {
  %c1 = spmd.sharding_constraint %a0 <@mesh, [{}, {"y"}]> : tensor<3x256xf32>
  %k4 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<3x17xf32>
  %f3 = linalg.fill ins(%k4 : f32) outs(%e2 : tensor<3x17xf32>) -> tensor<3x17xf32>
  %mm5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%c1, %a1 : tensor<3x256xf32>, tensor<256x17xf32>) outs(%f3 : tensor<3x17xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  } -> tensor<3x17xf32>
  %e6 = tensor.empty() : tensor<3x17xf32>
  %nl7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm5, %mm5 : tensor<3x17xf32>, tensor<3x17xf32>) outs(%e6 : tensor<3x17xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.absf %x : f32
    %u1 = arith.negf %u0 : f32
    %u2 = math.exp %u1 : f32
    %u3 = arith.constant 1.0 : f32
    %u4 = arith.addf %u2, %u3 : f32
    %u5 = math.log %u4 : f32
    %u6 = arith.constant 0.0 : f32
    %u7 = arith.maximumf %x, %u6 : f32
    %u8 = arith.addf %u7, %u5 : f32
    %u9 = arith.subf %u8, %y : f32
    %u10 = arith.constant 0.5 : f32
    %u11 = arith.constant 1.0 : f32
    %u12 = arith.constant 0.70710678 : f32
    %u13 = arith.mulf %u9, %u12 : f32
    %u14 = math.erf %u13 : f32
    %u15 = arith.mulf %u9, %u10 : f32
    %u16 = arith.addf %u11, %u14 : f32
    %u17 = arith.mulf %u15, %u16 : f32
    %u18 = arith.mulf %u17, %u17 : f32
    %u19 = arith.constant 1.0 : f32
    %u20 = arith.addf %u18, %u19 : f32
    %u21 = math.rsqrt %u20 : f32
    %u22 = arith.mulf %u17, %u21 : f32
    linalg.yield %u22 : f32
  } -> tensor<3x17xf32>
  %c8 = spmd.sharding_constraint %nl7 <@mesh, [{}, {"x"}]> : tensor<3x17xf32>
  %k11 = arith.constant 0.0 : f32
  %e9 = tensor.empty() : tensor<3x128xf32>
  %f10 = linalg.fill ins(%k11 : f32) outs(%e9 : tensor<3x128xf32>) -> tensor<3x128xf32>
  %mm12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%c8, %a2 : tensor<3x17xf32>, tensor<17x128xf32>) outs(%f10 : tensor<3x128xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  } -> tensor<3x128xf32>
  %e13 = tensor.empty() : tensor<3x128xf32>
  %nl14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm12, %mm12 : tensor<3x128xf32>, tensor<3x128xf32>) outs(%e13 : tensor<3x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.tanh %x : f32
    linalg.yield %u0 : f32
  } -> tensor<3x128xf32>
  %e15 = tensor.empty() : tensor<3x128xf32>
  %nl16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl14, %mm12 : tensor<3x128xf32>, tensor<3x128xf32>) outs(%e15 : tensor<3x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.tanh %y : f32
    %u1 = arith.constant 2.0 : f32
    %u2 = arith.addf %u0, %u1 : f32
    %u3 = arith.divf %x, %u2 : f32
    linalg.yield %u3 : f32
  } -> tensor<3x128xf32>
  %e17 = tensor.empty() : tensor<3x128xf32>
  %nl18 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl16, %mm12 : tensor<3x128xf32>, tensor<3x128xf32>) outs(%e17 : tensor<3x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.absf %x : f32
    %u1 = arith.negf %u0 : f32
    %u2 = math.exp %u1 : f32
    %u3 = math.tanh %u2 : f32
    %u4 = math.tanh %y : f32
    %u5 = arith.constant 2.0 : f32
    %u6 = arith.addf %u4, %u5 : f32
    %u7 = arith.divf %u3, %u6 : f32
    linalg.yield %u7 : f32
  } -> tensor<3x128xf32>
  %lbloop19 = arith.constant 0 : index
  %ubloop19 = arith.constant 4 : index
  %stloop19 = arith.constant 1 : index
  %loop19 = scf.for %ivloop19 = %lbloop19 to %ubloop19 step %stloop19 iter_args(%hloop19 = %nl18) -> (tensor<3x128xf32>) {
  %k22 = arith.constant 0.0 : f32
  %e20 = tensor.empty() : tensor<3x128xf32>
  %f21 = linalg.fill ins(%k22 : f32) outs(%e20 : tensor<3x128xf32>) -> tensor<3x128xf32>
  %mm23 = linalg.matmul ins(%hloop19, %a3 : tensor<3x128xf32>, tensor<128x128xf32>) outs(%f21 : tensor<3x128xf32>) -> tensor<3x128xf32>
  %e24 = tensor.empty() : tensor<3x128xf32>
  %nl25 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm23, %nl18 : tensor<3x128xf32>, tensor<3x128xf32>) outs(%e24 : tensor<3x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.tanh %y : f32
    %u1 = arith.constant 1.0 : f32
    %u2 = arith.addf %u0, %u1 : f32
    %u3 = arith.mulf %x, %u2 : f32
    linalg.yield %u3 : f32
  } -> tensor<3x128xf32>
  %e26 = tensor.empty() : tensor<3x128xf32>
  %nl27 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl25, %nl18 : tensor<3x128xf32>, tensor<3x128xf32>) outs(%e26 : tensor<3x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.absf %x : f32
    %u1 = arith.negf %u0 : f32
    %u2 = math.exp %u1 : f32
    %u3 = arith.subf %u2, %y : f32
    %u4 = math.tanh %u3 : f32
    %u5 = arith.mulf %u3, %u4 : f32
    %u6 = math.tanh %u5 : f32
    %u7 = arith.mulf %u5, %u6 : f32
    linalg.yield %u7 : f32
  } -> tensor<3x128xf32>
  scf.yield %nl27 : tensor<3x128xf32>
  }
  return %loop19 : tensor<3x128xf32>
}
