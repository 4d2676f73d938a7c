// One element read at a dynamic position of a split tensor, added to a
// replicated tensor.
spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @extract(%x: tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>},
                   %y: tensor<4xf32>, %i: index, %j: index) -> tensor<4xf32> {
  %c5 = arith.constant 5 : index
  %c9 = arith.constant 9 : index
  %r = arith.addi %i, %c9 : index
  %c = arith.addi %j, %c5 : index
  %v = tensor.extract %x[%r, %c] : tensor<16x16xf32>
  %e = tensor.empty() : tensor<4xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%y : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %v : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %o : tensor<4xf32>
}
