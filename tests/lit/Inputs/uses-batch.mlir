spmd.mesh @mesh = <["batch"=8]>
func.func @f(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"batch"}]>}) {
  return
}
