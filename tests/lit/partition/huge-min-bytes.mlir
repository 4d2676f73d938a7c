// Tests that spmd-partition's reshard costs do not wrap around on a tensor of
// 2^66 bytes (its element count alone beyond int64), and that the bytes a
// device must receive at least, beyond int64, saturate at its maximum (a
// wrapped, negative spmd.min_bytes failed verification before).
// RUN: spmd-opt %s --spmd-partition | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK: spmd.redistribute {{.*}} from <@mesh, [{"x"}, {"y"}]> to <@mesh, [{"y"}, {}]> {{.*}}spmd.min_bytes = 9223372036854775807
spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%arg0: tensor<4294967296x4294967296xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<4294967296x4294967296xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) -> (tensor<4294967296x4294967296xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) {
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} : tensor<4294967296x4294967296xf32>
  %1 = linalg.add {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>} ins(%arg0, %arg1 : tensor<4294967296x4294967296xf32>, tensor<4294967296x4294967296xf32>) outs(%0 : tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  return %1 : tensor<4294967296x4294967296xf32>
}
