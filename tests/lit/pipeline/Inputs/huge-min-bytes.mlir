// Unannotated input of partition/huge-min-bytes.mlir (which checks the result) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%a: tensor<4294967296x4294967296xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                %b: tensor<4294967296x4294967296xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>})
    -> (tensor<4294967296x4294967296xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) {
  %e = tensor.empty() : tensor<4294967296x4294967296xf32>
  %r = linalg.add ins(%a, %b : tensor<4294967296x4294967296xf32>, tensor<4294967296x4294967296xf32>)
                  outs(%e : tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  return %r : tensor<4294967296x4294967296xf32>
}
