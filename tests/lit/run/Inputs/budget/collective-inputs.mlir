// An all_gather whose 4 MiB result is concatenated four times: the
// gathered inputs are dead by then.
spmd.mesh @mesh = <["x"=4]>
func.func @main(%a: tensor<512x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %p = linalg.exp {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} ins(%a : tensor<512x512xf32>) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %g = spmd.sharding_constraint %p <@mesh, [{}, {}]> : tensor<512x512xf32>
  %big = tensor.concat dim(0) %g, %g, %g, %g {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} : (tensor<512x512xf32>, tensor<512x512xf32>, tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<2048x512xf32>
  %e1 = tensor.empty() : tensor<512xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<512xf32>) -> tensor<512xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (j)>], iterator_types = ["parallel", "reduction"]} ins(%big : tensor<2048x512xf32>) outs(%f1 : tensor<512xf32>) attrs = {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} {
  ^bb0(%v: f32, %o: f32):
    %m = arith.addf %v, %o : f32
    linalg.yield %m : f32
  } -> tensor<512xf32>
  return %s : tensor<512xf32>
}
