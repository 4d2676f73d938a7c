// The transpose reshard of a 64x1024 f32 value on data=2, model=4: both
// axes trade dimensions.
spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @transpose(%x: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>})
    -> (tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {"data"}]>}) {
  return %x : tensor<64x1024xf32>
}
