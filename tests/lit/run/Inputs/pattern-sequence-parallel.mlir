// Sequence-parallel transformer block (attention + MLP) on model=4: x
// [seq=16, hidden=32] split on the sequence; heads=4 (dh=8), ffn=64, f32.
// No priorities: where the input's sequence split meets the weights' head
// split, the larger weights keep theirs, so the heads stay split from the
// projections to the output projection.
spmd.mesh @mesh = <["model"=4]>
#x2 = affine_map<(h, s, d, c) -> (s, c)>
#w3 = affine_map<(h, s, d, c) -> (c, h, d)>
#o3 = affine_map<(h, s, d, c) -> (h, s, d)>
func.func @block(%x: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>},
                 %wq: tensor<32x4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}, {}]>},
                 %wk: tensor<32x4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}, {}]>},
                 %wv: tensor<32x4x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}, {}]>},
                 %wo: tensor<4x8x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}, {}]>},
                 %w1: tensor<32x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                 %w2: tensor<64x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) {
  %z = arith.constant 0.0 : f32
  // ---- attention ----
  %eh = tensor.empty() : tensor<4x16x8xf32>
  %fh = linalg.fill ins(%z : f32) outs(%eh : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %q = linalg.generic {indexing_maps = [#x2, #w3, #o3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wq : tensor<16x32xf32>, tensor<32x4x8xf32>) outs(%fh : tensor<4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x16x8xf32>
  %k = linalg.generic {indexing_maps = [#x2, #w3, #o3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wk : tensor<16x32xf32>, tensor<32x4x8xf32>) outs(%fh : tensor<4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x16x8xf32>
  %v = linalg.generic {indexing_maps = [#x2, #w3, #o3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wv : tensor<16x32xf32>, tensor<32x4x8xf32>) outs(%fh : tensor<4x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x16x8xf32>
  %es = tensor.empty() : tensor<4x16x16xf32>
  %fs = linalg.fill ins(%z : f32) outs(%es : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %sc = linalg.generic {indexing_maps = [affine_map<(h, s, t, d) -> (h, s, d)>, affine_map<(h, s, t, d) -> (h, t, d)>, affine_map<(h, s, t, d) -> (h, s, t)>],
                        iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<4x16x8xf32>, tensor<4x16x8xf32>) outs(%fs : tensor<4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x16x16xf32>
  %p = linalg.softmax dimension(2) ins(%sc : tensor<4x16x16xf32>) outs(%es : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %ctx = linalg.batch_matmul ins(%p, %v : tensor<4x16x16xf32>, tensor<4x16x8xf32>) outs(%fh : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %e2 = tensor.empty() : tensor<16x32xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %ao = linalg.generic {indexing_maps = [affine_map<(s, c, h, d) -> (h, s, d)>, affine_map<(s, c, h, d) -> (h, d, c)>, affine_map<(s, c, h, d) -> (s, c)>],
                        iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%ctx, %wo : tensor<4x16x8xf32>, tensor<4x8x32xf32>) outs(%f2 : tensor<16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  %aos = spmd.sharding_constraint %ao <@mesh, [{"model"}, {}]> : tensor<16x32xf32>
  %x1 = linalg.add ins(%aos, %x : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  // ---- MLP ----
  %e1 = tensor.empty() : tensor<16x64xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %h = linalg.matmul ins(%x1, %w1 : tensor<16x32xf32>, tensor<32x64xf32>) outs(%f1 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<16x64xf32>) outs(%e1 : tensor<16x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c05 = arith.constant 0.5 : f32
    %c1 = arith.constant 1.0 : f32
    %ck = arith.constant 0.7978845608 : f32
    %cc = arith.constant 0.044715 : f32
    %a2 = arith.mulf %a, %a : f32
    %a3 = arith.mulf %a2, %a : f32
    %t0 = arith.mulf %cc, %a3 : f32
    %t1 = arith.addf %a, %t0 : f32
    %t2 = arith.mulf %ck, %t1 : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %c1, %t3 : f32
    %t5 = arith.mulf %a, %t4 : f32
    %t6 = arith.mulf %c05, %t5 : f32
    linalg.yield %t6 : f32
  } -> tensor<16x64xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y = linalg.matmul ins(%g, %w2 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f3 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %ys = spmd.sharding_constraint %y <@mesh, [{"model"}, {}]> : tensor<16x32xf32>
  %r = linalg.add ins(%ys, %x1 : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
