// A value needed split on its other dimension first and gathered later:
// the gather is made where the value is, and the split copy sliced from it.
spmd.mesh @mesh = <["data"=2]>
func.func @gathered_later(%x: tensor<6x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>})
    -> (tensor<6x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"data"}]>},
        tensor<6x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %b = spmd.sharding_constraint %x <@mesh, [{}, {"data"}]> : tensor<6x10xf32>
  %a = spmd.sharding_constraint %x <@mesh, [{}, {}]> : tensor<6x10xf32>
  return %b, %a : tensor<6x10xf32>, tensor<6x10xf32>
}
