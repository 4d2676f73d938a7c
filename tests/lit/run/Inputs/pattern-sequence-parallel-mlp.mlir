// Sequence-parallel MLP: all_gather, column-split matmul, GELU in place,
// row-split matmul, reduce_scatter, residual add; no priorities needed.
spmd.mesh @mesh = <["model"=4]>
func.func @sp_block(%x: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>},
                    %w1: tensor<32x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                    %w2: tensor<64x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16x64xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<16x32xf32>, tensor<32x64xf32>) outs(%f1 : tensor<16x64xf32>) -> tensor<16x64xf32>
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
  %e2 = tensor.empty() : tensor<16x32xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y = linalg.matmul ins(%g, %w2 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %ys = spmd.sharding_constraint %y <@mesh, [{"model"}, {}]> : tensor<16x32xf32>
  %r = linalg.add ins(%ys, %x : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
