spmd.mesh @mesh = <["data"=2]>
func.func @f(%x: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  return
}
