// RUN: spmd-opt %s --spmd-pipeline --spmd-comm-report -o /dev/null | FileCheck %s

// One value returned in three and four layouts: each reshard may start from a
// copy made for another, while the plan cache grows (a held plan used to
// move when the cache rehashed: crashes and wrong types).
// CHECK: "total_comm_bytes"
spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @f1(%x: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}, tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  return %x, %x, %x : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
func.func @f2(%x: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}, tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}, tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"data"}]>}) {
  return %x, %x, %x, %x : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
}
