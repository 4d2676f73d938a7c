// Unannotated input of partition/reshard-budget.mlir (which checks the result) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=2, "e"=2, "f"=2, "g"=2]>
func.func @f(%x: tensor<9x8x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", "c"}, {"d", "e"}, {"f"}], partial={"g"}>})
    -> (tensor<9x8x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"e", "c"}, {"g", "a"}, {"b", "d", "f"}]>}) {
  return %x : tensor<9x8x6xf32>
}
