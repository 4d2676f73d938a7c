// A mesh of no axes is one device (the product of no sizes): programs on
// it run, planned or not.
// RUN: spmd-run %s --check | FileCheck %s
// RUN: spmd-opt %s --spmd-auto-shard=memory-budget=1MB -o %t.mlir
// RUN: spmd-run %t.mlir --check | FileCheck %s
// CHECK: devices=1
// CHECK: check: PASS

spmd.mesh @mesh = <[]>
func.func @f(%x: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<8x8xf32> {
  %y = math.tanh %x : tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
