// Kernels large enough to be split over a device's threads: an
// elementwise op with a broadcast, and row sums (a reduction whose
// parallel loop is split).
spmd.mesh @mesh = <["x"=2]>
func.func @threads(%a: tensor<1024x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                   %b: tensor<512xf32>) -> (tensor<1024x512xf32>, tensor<1024xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x512xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<1024x512xf32>, tensor<512xf32>) outs(%e : tensor<1024x512xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.mulf %x, %c : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<1024x512xf32>
  %e2 = tensor.empty() : tensor<1024xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1024xf32>) -> tensor<1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<1024x512xf32>) outs(%f2 : tensor<1024xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %y, %r : tensor<1024x512xf32>, tensor<1024xf32>
}
