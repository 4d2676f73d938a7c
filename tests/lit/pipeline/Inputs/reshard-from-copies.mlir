// Unannotated input of partition/reshard-from-copies.mlir (which checks the result) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @f1(%x: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}, tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  return %x, %x, %x : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
func.func @f2(%x: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}, tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}, tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"data"}]>}) {
  return %x, %x, %x, %x : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
}
