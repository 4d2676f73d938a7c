// Unannotated input of comm-report/huge.mlir (which checks the report) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @reshard(%a: tensor<2305843009213693952xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>})
    -> (tensor<2305843009213693952xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}]>}) {
  return %a : tensor<2305843009213693952xf32>
}
