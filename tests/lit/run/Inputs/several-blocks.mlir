// Branches between blocks of a function (cf), as some importers emit.
spmd.mesh @mesh = <["x"=4]>
func.func @f(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %c: i1) -> tensor<8xf32> {
  cf.cond_br %c, ^a, ^b
^a:
  %y = math.tanh %x : tensor<8xf32>
  return %y : tensor<8xf32>
^b:
  return %x : tensor<8xf32>
}
