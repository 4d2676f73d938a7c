// Stacked weights read only by dynamic slices inside scf.for.
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @layers(%x: tensor<16x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                  %w: tensor<4x128x128xf32>, %b: tensor<4x128xf32>) -> tensor<16x128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %l = %c0 to %c4 step %c1 iter_args(%h = %x) -> (tensor<16x128xf32>) {
    %wl = tensor.extract_slice %w[%l, 0, 0] [1, 128, 128] [1, 1, 1] : tensor<4x128x128xf32> to tensor<128x128xf32>
    %bl = tensor.extract_slice %b[%l, 0] [1, 128] [1, 1] : tensor<4x128xf32> to tensor<128xf32>
    %e = tensor.empty() : tensor<16x128xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x128xf32>) -> tensor<16x128xf32>
    %y = linalg.matmul ins(%h, %wl : tensor<16x128xf32>, tensor<128x128xf32>) outs(%f : tensor<16x128xf32>) -> tensor<16x128xf32>
    %yb = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                          iterator_types = ["parallel", "parallel"]}
        ins(%y, %bl : tensor<16x128xf32>, tensor<128xf32>) outs(%e : tensor<16x128xf32>) {
    ^bb0(%a: f32, %c: f32, %o: f32):
      %s = arith.addf %a, %c : f32
      linalg.yield %s : f32
    } -> tensor<16x128xf32>
    scf.yield %yb : tensor<16x128xf32>
  }
  return %r : tensor<16x128xf32>
}
