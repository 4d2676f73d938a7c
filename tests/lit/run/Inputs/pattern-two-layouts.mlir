// A value needed in two layouts: gathered for one use, split on the other
// dimension for another. The second is sliced from the gathered copy.
spmd.mesh @mesh = <["data"=2]>
func.func @two_layouts(%x: tensor<6x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>})
    -> (tensor<6x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>},
        tensor<6x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"data"}]>}) {
  %a = spmd.sharding_constraint %x <@mesh, [{}, {}]> : tensor<6x10xf32>
  %b = spmd.sharding_constraint %x <@mesh, [{}, {"data"}]> : tensor<6x10xf32>
  return %a, %b : tensor<6x10xf32>, tensor<6x10xf32>
}
