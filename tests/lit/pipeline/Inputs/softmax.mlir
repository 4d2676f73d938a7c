// Unannotated input of partition/softmax.mlir (which checks the result) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @rows(%x: tensor<5x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<5x7xf32> {
  %e = tensor.empty() : tensor<5x7xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<5x7xf32>) outs(%e : tensor<5x7xf32>) -> tensor<5x7xf32>
  return %r : tensor<5x7xf32>
}
