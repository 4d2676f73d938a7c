spmd.mesh @mesh = <["x"=32768]>
func.func @f(%a: tensor<65536xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<65536xf32> {
  %e = math.exp %a : tensor<65536xf32>
  return %e : tensor<65536xf32>
}
