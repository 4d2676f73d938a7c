// One value in four layouts on a 2x2 mesh, the gathered one asked for
// third: one all_gather, and every other layout sliced from it.
spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @four_layouts(%v: tensor<8x12xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> (tensor<8x12xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>},
        tensor<8x12xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x", "y"}]>},
        tensor<8x12xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>},
        tensor<8x12xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}) {
  %b = spmd.sharding_constraint %v <@mesh, [{"y"}, {"x"}]> : tensor<8x12xf32>
  %c = spmd.sharding_constraint %v <@mesh, [{}, {"x", "y"}]> : tensor<8x12xf32>
  %n = arith.negf %c : tensor<8x12xf32>
  %a = spmd.sharding_constraint %v <@mesh, [{}, {}]> : tensor<8x12xf32>
  %d = spmd.sharding_constraint %v <@mesh, [{"x", "y"}, {}]> : tensor<8x12xf32>
  %m = arith.mulf %a, %a : tensor<8x12xf32>
  return %b, %n, %m, %d : tensor<8x12xf32>, tensor<8x12xf32>, tensor<8x12xf32>, tensor<8x12xf32>
}
