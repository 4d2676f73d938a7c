// A callee partitioned after its first caller: the symbol table still named
// the erased global function (a read of freed memory; the second call
// found the wrong signature).
spmd.mesh @mesh = <["x"=2]>
func.func @first(%t: tensor<4xf32>) -> tensor<4xf32> {
  %s = func.call @k(%t) : (tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func private @k(%t: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %s = math.cos %t : tensor<4xf32>
  return %s : tensor<4xf32>
}
func.func @main(%t: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<4xf32> {
  %s = func.call @k(%t) : (tensor<4xf32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
