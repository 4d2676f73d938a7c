// Causal attention with the scores split over their key dimension (7 over 3):
// the softmax's max and denominator reduce over uneven, masked shards.
spmd.mesh @mesh = <["x"=2, "y"=3]>
#q = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
func.func @attention(%Q: tensor<2x3x7x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}, {}]>},
                     %K: tensor<2x3x7x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y"}, {}]>},
                     %V: tensor<2x3x7x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}, {"x"}, {}]>})
    -> (tensor<2x3x7x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {"y"}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -1.0e30 : f32
  %scale = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<2x3x7x7xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x7x7xf32>) -> tensor<2x3x7x7xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%Q, %K : tensor<2x3x7x4xf32>, tensor<2x3x7x4xf32>) outs(%f : tensor<2x3x7x7xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %t = arith.addf %o, %m : f32
    linalg.yield %t : f32
  } -> tensor<2x3x7x7xf32>
  %sc0 = spmd.sharding_constraint %s <@mesh, [{"x"}, {}, {}, {"y"}]> : tensor<2x3x7x7xf32>
  // causal mask and scale
  %e2 = tensor.empty() : tensor<2x3x7x7xf32>
  %masked = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sc0 : tensor<2x3x7x7xf32>) outs(%e2 : tensor<2x3x7x7xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ok = arith.cmpi ule, %j, %i : index
    %sc = arith.mulf %x, %scale : f32
    %v = arith.select %ok, %sc, %ninf : f32
    linalg.yield %v : f32
  } -> tensor<2x3x7x7xf32>
  // row max
  %em = tensor.empty() : tensor<2x3x7xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%em : tensor<2x3x7xf32>) -> tensor<2x3x7xf32>
  %mx = linalg.reduce ins(%masked : tensor<2x3x7x7xf32>) outs(%fm : tensor<2x3x7xf32>) dimensions = [3]
    (%x: f32, %o: f32) {
      %r = arith.maximumf %x, %o : f32
      linalg.yield %r : f32
    }
  // denominators: sum exp(x - max)
  %fs = linalg.fill ins(%zero : f32) outs(%em : tensor<2x3x7xf32>) -> tensor<2x3x7xf32>
  %den = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i)>, affine_map<(b, h, i, j) -> (b, h, i)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%masked, %mx : tensor<2x3x7x7xf32>, tensor<2x3x7xf32>) outs(%fs : tensor<2x3x7xf32>) {
  ^bb0(%x: f32, %m: f32, %o: f32):
    %d = arith.subf %x, %m : f32
    %ex = math.exp %d : f32
    %t = arith.addf %ex, %o : f32
    linalg.yield %t : f32
  } -> tensor<2x3x7xf32>
  %e3 = tensor.empty() : tensor<2x3x7x7xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>, affine_map<(b, h, i, j) -> (b, h, i)>, affine_map<(b, h, i, j) -> (b, h, i)>, affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%masked, %mx, %den : tensor<2x3x7x7xf32>, tensor<2x3x7xf32>, tensor<2x3x7xf32>) outs(%e3 : tensor<2x3x7x7xf32>) {
  ^bb0(%x: f32, %m: f32, %dd: f32, %o: f32):
    %d = arith.subf %x, %m : f32
    %ex = math.exp %d : f32
    %q = arith.divf %ex, %dd : f32
    linalg.yield %q : f32
  } -> tensor<2x3x7x7xf32>
  %eo = tensor.empty() : tensor<2x3x7x4xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x3x7x4xf32>) -> tensor<2x3x7x4xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(b, h, i, d, j) -> (b, h, i, j)>, affine_map<(b, h, i, d, j) -> (b, h, j, d)>, affine_map<(b, h, i, d, j) -> (b, h, i, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %V : tensor<2x3x7x7xf32>, tensor<2x3x7x4xf32>) outs(%fo : tensor<2x3x7x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %t = arith.addf %o, %m : f32
    linalg.yield %t : f32
  } -> tensor<2x3x7x4xf32>
  return %out : tensor<2x3x7x4xf32>
}
