spmd.mesh @mesh = <["x"=3, "y"=2]>
func.func @main(%a0: tensor<1x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}, %a1: tensor<512x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}, %a2: tensor<128x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}) -> tensor<1x128xf32> {
  %k3 = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x128xf32>
  %f2 = linalg.fill ins(%k3 : f32) outs(%e1 : tensor<1x128xf32>) -> tensor<1x128xf32>
  %mm4 = linalg.matmul ins(%a0, %a1 : tensor<1x512xf32>, tensor<512x128xf32>) outs(%f2 : tensor<1x128xf32>) -> tensor<1x128xf32>
  %e5 = tensor.empty() : tensor<1x128xf32>
  %nl6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm4, %mm4 : tensor<1x128xf32>, tensor<1x128xf32>) outs(%e5 : tensor<1x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.tanh %x : f32
    %u1 = arith.constant 0.5 : f32
    %u2 = math.absf %u0 : f32
    %u3 = arith.addf %u2, %u1 : f32
    %u4 = math.log %u3 : f32
    %u5 = math.tanh %y : f32
    %u6 = arith.constant 2.0 : f32
    %u7 = arith.addf %u5, %u6 : f32
    %u8 = arith.divf %u4, %u7 : f32
    %u9 = math.absf %u8 : f32
    %u10 = arith.negf %u9 : f32
    %u11 = math.exp %u10 : f32
    %u12 = math.absf %u11 : f32
    %u13 = arith.negf %u12 : f32
    %u14 = math.exp %u13 : f32
    %u15 = math.absf %u14 : f32
    %u16 = arith.constant 0.5 : f32
    %u17 = arith.addf %u15, %u16 : f32
    %u18 = math.sqrt %u17 : f32
    linalg.yield %u18 : f32
  } -> tensor<1x128xf32>
  %e7 = tensor.empty() : tensor<1x128xf32>
  %nl8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%nl6, %mm4 : tensor<1x128xf32>, tensor<1x128xf32>) outs(%e7 : tensor<1x128xf32>) {
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
    linalg.yield %u8 : f32
  } -> tensor<1x128xf32>
  %lbloop9 = arith.constant 0 : index
  %ubloop9 = arith.constant 5 : index
  %stloop9 = arith.constant 1 : index
  %loop9 = scf.for %ivloop9 = %lbloop9 to %ubloop9 step %stloop9 iter_args(%hloop9 = %nl8) -> (tensor<1x128xf32>) {
  %c10 = spmd.sharding_constraint %hloop9 <@mesh, [{"y"}, {"x"}]> : tensor<1x128xf32>
  %k13 = arith.constant 0.0 : f32
  %e11 = tensor.empty() : tensor<1x128xf32>
  %f12 = linalg.fill ins(%k13 : f32) outs(%e11 : tensor<1x128xf32>) -> tensor<1x128xf32>
  %mm14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%c10, %a2 : tensor<1x128xf32>, tensor<128x128xf32>) outs(%f12 : tensor<1x128xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %pq = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %pq : f32
    linalg.yield %s : f32
  } -> tensor<1x128xf32>
  %e15 = tensor.empty() : tensor<1x128xf32>
  %nl16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm14, %nl8 : tensor<1x128xf32>, tensor<1x128xf32>) outs(%e15 : tensor<1x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %u0 = math.tanh %y : f32
    %u1 = arith.constant 1.0 : f32
    %u2 = arith.addf %u0, %u1 : f32
    %u3 = arith.mulf %x, %u2 : f32
    %u4 = math.tanh %u3 : f32
    %u5 = arith.mulf %u3, %u4 : f32
    %u6 = math.absf %u5 : f32
    %u7 = arith.negf %u6 : f32
    %u8 = math.exp %u7 : f32
    %u9 = arith.constant 0.5 : f32
    %u10 = arith.constant 1.0 : f32
    %u11 = arith.constant 0.70710678 : f32
    %u12 = arith.mulf %u8, %u11 : f32
    %u13 = math.erf %u12 : f32
    %u14 = arith.mulf %u8, %u9 : f32
    %u15 = arith.addf %u10, %u13 : f32
    %u16 = arith.mulf %u14, %u15 : f32
    linalg.yield %u16 : f32
  } -> tensor<1x128xf32>
  scf.yield %nl16 : tensor<1x128xf32>
  }
  return %loop9 : tensor<1x128xf32>
}
