// Two tensors on different meshes meet in one op: a compile error.
spmd.mesh @mesh = <["x"=2]>
spmd.mesh @m2 = <["y"=2]>
func.func @f(%a: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %b: tensor<4xf32> {spmd.sharding = #spmd.sharding<@m2, [{"y"}]>}) -> tensor<4xf32> {
  %c = arith.addf %a, %b : tensor<4xf32>
  return %c : tensor<4xf32>
}
