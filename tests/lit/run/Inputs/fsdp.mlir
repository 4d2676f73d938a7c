// FSDP: every weight sharded over "x" (like the batch) and gathered whole
// right before its layer (the constraint), so a device holds its quarter
// of the parameters plus one gathered layer at a time.
spmd.mesh @mesh = <["x"=4]>
#m = affine_map<(i, j) -> (i, j)>
func.func @fsdp(%x0: tensor<8x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                 %w0: tensor<256x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                 %w1: tensor<256x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                 %w2: tensor<256x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                 %w3: tensor<256x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x256xf32>) -> tensor<8x256xf32>
  %g0 = spmd.sharding_constraint %w0 <@mesh, [{}, {}]> : tensor<256x256xf32>
  %h0 = linalg.matmul ins(%x0, %g0 : tensor<8x256xf32>, tensor<256x256xf32>) outs(%f : tensor<8x256xf32>) -> tensor<8x256xf32>
  %x1 = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel"]} ins(%h0 : tensor<8x256xf32>) outs(%e : tensor<8x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %z : f32
    linalg.yield %r : f32
  } -> tensor<8x256xf32>
  %g1 = spmd.sharding_constraint %w1 <@mesh, [{}, {}]> : tensor<256x256xf32>
  %h1 = linalg.matmul ins(%x1, %g1 : tensor<8x256xf32>, tensor<256x256xf32>) outs(%f : tensor<8x256xf32>) -> tensor<8x256xf32>
  %x2 = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel"]} ins(%h1 : tensor<8x256xf32>) outs(%e : tensor<8x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %z : f32
    linalg.yield %r : f32
  } -> tensor<8x256xf32>
  %g2 = spmd.sharding_constraint %w2 <@mesh, [{}, {}]> : tensor<256x256xf32>
  %h2 = linalg.matmul ins(%x2, %g2 : tensor<8x256xf32>, tensor<256x256xf32>) outs(%f : tensor<8x256xf32>) -> tensor<8x256xf32>
  %x3 = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel"]} ins(%h2 : tensor<8x256xf32>) outs(%e : tensor<8x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %z : f32
    linalg.yield %r : f32
  } -> tensor<8x256xf32>
  %g3 = spmd.sharding_constraint %w3 <@mesh, [{}, {}]> : tensor<256x256xf32>
  %h3 = linalg.matmul ins(%x3, %g3 : tensor<8x256xf32>, tensor<256x256xf32>) outs(%f : tensor<8x256xf32>) -> tensor<8x256xf32>
  %x4 = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel"]} ins(%h3 : tensor<8x256xf32>) outs(%e : tensor<8x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %z : f32
    linalg.yield %r : f32
  } -> tensor<8x256xf32>
  return %x4 : tensor<8x256xf32>
}
