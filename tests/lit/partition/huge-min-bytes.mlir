// RUN: spmd-opt %s --spmd-pipeline | FileCheck %s

// A tensor of 2^66 bytes (its element count alone beyond int64): the
// planner's costs do not wrap around, and the bytes a device must receive
// at least, beyond int64, saturate at its maximum (a wrapped, negative
// spmd.min_bytes failed verification before).
// CHECK-LABEL: func.func @main
// CHECK: spmd.redistribute {{.*}} from <@mesh, [{"x"}, {"y"}]> to <@mesh, [{"y"}, {}]> {{.*}}spmd.min_bytes = 9223372036854775807
spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%a: tensor<4294967296x4294967296xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                %b: tensor<4294967296x4294967296xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>})
    -> (tensor<4294967296x4294967296xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}) {
  %e = tensor.empty() : tensor<4294967296x4294967296xf32>
  %r = linalg.add ins(%a, %b : tensor<4294967296x4294967296xf32>, tensor<4294967296x4294967296xf32>)
                  outs(%e : tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  return %r : tensor<4294967296x4294967296xf32>
}
