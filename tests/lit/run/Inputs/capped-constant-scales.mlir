spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%a0: tensor<8x300xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}, %a1: tensor<300x17xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}, %a2: tensor<17x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}, %a3: tensor<256x17xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}, %a4: tensor<17x17xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}) -> tensor<8x17xf32> {
  %c1 = spmd.sharding_constraint %a0 <@mesh, [{}, {"y", "x"}]> : tensor<8x300xf32>
  %k4 = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x17xf32>
  %f3 = linalg.fill ins(%k4 : f32) outs(%e2 : tensor<8x17xf32>) -> tensor<8x17xf32>
  %mm5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%c1, %a1 : tensor<8x300xf32>, tensor<300x17xf32>) outs(%f3 : tensor<8x17xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  } -> tensor<8x17xf32>
  %e6 = tensor.empty() : tensor<8x17xf32>
  %nl7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm5, %mm5 : tensor<8x17xf32>, tensor<8x17xf32>) outs(%e6 : tensor<8x17xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = arith.constant 0.5 : f32
    %u1 = math.absf %x : f32
    %u2 = arith.addf %u1, %u0 : f32
    %u3 = math.log %u2 : f32
    %u4 = math.tanh %y : f32
    %u5 = arith.constant 2.0 : f32
    %u6 = arith.addf %u4, %u5 : f32
    %u7 = arith.divf %u3, %u6 : f32
    %u8 = arith.mulf %u7, %u7 : f32
    %u9 = arith.constant 1.0 : f32
    %u10 = arith.addf %u8, %u9 : f32
    %u11 = math.rsqrt %u10 : f32
    %u12 = arith.mulf %u7, %u11 : f32
    linalg.yield %u12 : f32
  } -> tensor<8x17xf32>
  %e8 = tensor.empty() : tensor<8x17xf32>
  %nl9 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl7, %mm5 : tensor<8x17xf32>, tensor<8x17xf32>) outs(%e8 : tensor<8x17xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.tanh %y : f32
    %u1 = arith.constant 2.0 : f32
    %u2 = arith.addf %u0, %u1 : f32
    %u3 = arith.divf %x, %u2 : f32
    linalg.yield %u3 : f32
  } -> tensor<8x17xf32>
  %c10 = spmd.sharding_constraint %nl9 <@mesh, [{"x"}, {"y"}]> : tensor<8x17xf32>
  %k13 = arith.constant -3.0e38 : f32
  %e11 = tensor.empty() : tensor<8xf32>
  %f12 = linalg.fill ins(%k13 : f32) outs(%e11 : tensor<8xf32>) -> tensor<8xf32>
  %red14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%c10 : tensor<8x17xf32>) outs(%f12 : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e15 = tensor.empty() : tensor<8x17xf32>
  %rw16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl9, %red14 : tensor<8x17xf32>, tensor<8xf32>) outs(%e15 : tensor<8x17xf32>) {
  ^bb0(%x: f32, %r: f32, %o: f32):
    %d = arith.subf %x, %r : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  } -> tensor<8x17xf32>
  %k19 = arith.constant 0.0 : f32
  %e17 = tensor.empty() : tensor<8xf32>
  %f18 = linalg.fill ins(%k19 : f32) outs(%e17 : tensor<8xf32>) -> tensor<8xf32>
  %red20 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%rw16 : tensor<8x17xf32>) outs(%f18 : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e21 = tensor.empty() : tensor<8x17xf32>
  %rw22 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%rw16, %red20 : tensor<8x17xf32>, tensor<8xf32>) outs(%e21 : tensor<8x17xf32>) {
  ^bb0(%x: f32, %r: f32, %o: f32):
    %q = arith.divf %x, %r : f32
    linalg.yield %q : f32
  } -> tensor<8x17xf32>
  %e23 = tensor.empty() : tensor<8x17xf32>
  %nl24 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%rw22, %rw22 : tensor<8x17xf32>, tensor<8x17xf32>) outs(%e23 : tensor<8x17xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.tanh %x : f32
    %u1 = arith.mulf %x, %u0 : f32
    %u2 = arith.negf %u1 : f32
    %u3 = math.exp %u2 : f32
    %u4 = arith.constant 1.0 : f32
    %u5 = arith.addf %u4, %u3 : f32
    %u6 = arith.divf %u4, %u5 : f32
    %u7 = math.tanh %y : f32
    %u8 = arith.constant 2.0 : f32
    %u9 = arith.addf %u7, %u8 : f32
    %u10 = arith.divf %u6, %u9 : f32
    %u11 = math.tanh %y : f32
    %u12 = arith.constant 2.0 : f32
    %u13 = arith.addf %u11, %u12 : f32
    %u14 = arith.divf %u10, %u13 : f32
    %u15 = arith.constant 1.0 : f32
    %u16 = math.absf %u14 : f32
    %u17 = arith.addf %u16, %u15 : f32
    %u18 = math.log %u17 : f32
    linalg.yield %u18 : f32
  } -> tensor<8x17xf32>
  %k27 = arith.constant 0.0 : f32
  %e25 = tensor.empty() : tensor<8x256xf32>
  %f26 = linalg.fill ins(%k27 : f32) outs(%e25 : tensor<8x256xf32>) -> tensor<8x256xf32>
  %mm28 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%nl24, %a2 : tensor<8x17xf32>, tensor<17x256xf32>) outs(%f26 : tensor<8x256xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  } -> tensor<8x256xf32>
  %e29 = tensor.empty() : tensor<8x256xf32>
  %nl30 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm28, %mm28 : tensor<8x256xf32>, tensor<8x256xf32>) outs(%e29 : tensor<8x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.absf %x : f32
    %u1 = arith.constant 0.5 : f32
    %u2 = arith.addf %u0, %u1 : f32
    %u3 = math.sqrt %u2 : f32
    %u4 = math.absf %u3 : f32
    %u5 = arith.negf %u4 : f32
    %u6 = math.exp %u5 : f32
    %u7 = arith.constant 1.0 : f32
    %u8 = arith.addf %u6, %u7 : f32
    %u9 = math.log %u8 : f32
    %u10 = arith.constant 0.0 : f32
    %u11 = arith.maximumf %u3, %u10 : f32
    %u12 = arith.addf %u11, %u9 : f32
    %u13 = math.tanh %u12 : f32
    %u14 = arith.mulf %u12, %u13 : f32
    %u15 = math.absf %u14 : f32
    %u16 = arith.negf %u15 : f32
    %u17 = math.exp %u16 : f32
    %u18 = math.tanh %u17 : f32
    linalg.yield %u18 : f32
  } -> tensor<8x256xf32>
  %e31 = tensor.empty() : tensor<8x256xf32>
  %nl32 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl30, %mm28 : tensor<8x256xf32>, tensor<8x256xf32>) outs(%e31 : tensor<8x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.tanh %x : f32
    %u1 = math.exp %u0 : f32
    %u2 = math.absf %u1 : f32
    %u3 = arith.negf %u2 : f32
    %u4 = math.exp %u3 : f32
    %u5 = arith.negf %u4 : f32
    %u6 = math.exp %u5 : f32
    %u7 = arith.constant 1.0 : f32
    %u8 = arith.addf %u7, %u6 : f32
    %u9 = arith.divf %u7, %u8 : f32
    linalg.yield %u9 : f32
  } -> tensor<8x256xf32>
  %k35 = arith.constant 0.0 : f32
  %e33 = tensor.empty() : tensor<8x17xf32>
  %f34 = linalg.fill ins(%k35 : f32) outs(%e33 : tensor<8x17xf32>) -> tensor<8x17xf32>
  %mm36 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%nl32, %a3 : tensor<8x256xf32>, tensor<256x17xf32>) outs(%f34 : tensor<8x17xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  } -> tensor<8x17xf32>
  %e37 = tensor.empty() : tensor<8x17xf32>
  %nl38 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm36, %mm36 : tensor<8x17xf32>, tensor<8x17xf32>) outs(%e37 : tensor<8x17xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.tanh %x : f32
    %u1 = arith.mulf %x, %u0 : f32
    %u2 = math.tanh %u1 : f32
    %u3 = arith.mulf %u1, %u2 : f32
    linalg.yield %u3 : f32
  } -> tensor<8x17xf32>
  %e39 = tensor.empty() : tensor<8x17xf32>
  %nl40 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl38, %mm36 : tensor<8x17xf32>, tensor<8x17xf32>) outs(%e39 : tensor<8x17xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.tanh %x : f32
    %u1 = math.tanh %y : f32
    %u2 = arith.constant 1.0 : f32
    %u3 = arith.addf %u1, %u2 : f32
    %u4 = arith.mulf %u0, %u3 : f32
    linalg.yield %u4 : f32
  } -> tensor<8x17xf32>
  %e41 = tensor.empty() : tensor<8x17xf32>
  %nl42 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl40, %mm36 : tensor<8x17xf32>, tensor<8x17xf32>) outs(%e41 : tensor<8x17xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = arith.subf %x, %y : f32
    %u1 = math.tanh %u0 : f32
    %u2 = arith.mulf %u0, %u1 : f32
    %u3 = math.absf %u2 : f32
    %u4 = arith.negf %u3 : f32
    %u5 = math.exp %u4 : f32
    %u6 = arith.constant 0.5 : f32
    %u7 = arith.constant 1.0 : f32
    %u8 = arith.constant 0.70710678 : f32
    %u9 = arith.mulf %u5, %u8 : f32
    %u10 = math.erf %u9 : f32
    %u11 = arith.mulf %u5, %u6 : f32
    %u12 = arith.addf %u7, %u10 : f32
    %u13 = arith.mulf %u11, %u12 : f32
    linalg.yield %u13 : f32
  } -> tensor<8x17xf32>
  %lbloop43 = arith.constant 0 : index
  %ubloop43 = arith.constant 5 : index
  %stloop43 = arith.constant 1 : index
  %loop43 = scf.for %ivloop43 = %lbloop43 to %ubloop43 step %stloop43 iter_args(%hloop43 = %nl42) -> (tensor<8x17xf32>) {
  %k46 = arith.constant 0.0 : f32
  %e44 = tensor.empty() : tensor<8x17xf32>
  %f45 = linalg.fill ins(%k46 : f32) outs(%e44 : tensor<8x17xf32>) -> tensor<8x17xf32>
  %mm47 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%hloop43, %a4 : tensor<8x17xf32>, tensor<17x17xf32>) outs(%f45 : tensor<8x17xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  } -> tensor<8x17xf32>
  %e48 = tensor.empty() : tensor<8x17xf32>
  %nl49 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm47, %nl42 : tensor<8x17xf32>, tensor<8x17xf32>) outs(%e48 : tensor<8x17xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.tanh %y : f32
    %u1 = arith.constant 2.0 : f32
    %u2 = arith.addf %u0, %u1 : f32
    %u3 = arith.divf %x, %u2 : f32
    linalg.yield %u3 : f32
  } -> tensor<8x17xf32>
  %e50 = tensor.empty() : tensor<8x17xf32>
  %nl51 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl49, %nl42 : tensor<8x17xf32>, tensor<8x17xf32>) outs(%e50 : tensor<8x17xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.tanh %x : f32
    %u1 = arith.mulf %x, %u0 : f32
    %u2 = arith.constant 0.25 : f32
    %u3 = arith.mulf %u1, %u1 : f32
    %u4 = arith.addf %u3, %u2 : f32
    %u5 = arith.divf %u1, %u4 : f32
    %u6 = math.tanh %u5 : f32
    %u7 = arith.mulf %u5, %u6 : f32
    linalg.yield %u7 : f32
  } -> tensor<8x17xf32>
  %e52 = tensor.empty() : tensor<8x17xf32>
  %nl53 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl51, %nl42 : tensor<8x17xf32>, tensor<8x17xf32>) outs(%e52 : tensor<8x17xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.tanh %x : f32
    linalg.yield %u0 : f32
  } -> tensor<8x17xf32>
  scf.yield %nl53 : tensor<8x17xf32>
  }
  return %loop43 : tensor<8x17xf32>
}
