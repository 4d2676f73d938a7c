spmd.mesh @mesh = <["data"=2]>
// The mesh has no "model" axis.
func.func @f(%x: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) {
  return
}
