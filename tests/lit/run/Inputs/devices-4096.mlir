spmd.mesh @mesh = <["x"=4096]>
func.func @f(%a: tensor<8192xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<8192xf32>, tensor<f32>) {
  %e = math.exp %a : tensor<8192xf32>
  %z = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce { arith.addf } ins(%e : tensor<8192xf32>) outs(%f : tensor<f32>) dimensions = [0]
  return %e, %s : tensor<8192xf32>, tensor<f32>
}
