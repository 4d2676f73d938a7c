spmd.mesh @mesh = <["x"=4096]>
func.func @f(%a: tensor<8192xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8192xf32> {
  %e = math.exp %a : tensor<8192xf32>
  return %e : tensor<8192xf32>
}
