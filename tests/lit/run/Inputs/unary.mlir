spmd.mesh @mesh = <["x"=4]>
func.func @unary(%x: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<16x32xf32> {
  %0 = math.tanh %x : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}
