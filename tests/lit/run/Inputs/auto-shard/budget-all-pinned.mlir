spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @main(%x: tensor<64x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> (tensor<64x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  return %x : tensor<64x64xf32>
}
