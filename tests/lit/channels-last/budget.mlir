// A module auto-sharded under a memory budget carries the budget
// (spmd.memory_budget, bytes per device), and spmd-channels-last leaves it
// as it is: the plan did not price the transposed copies. Without a budget
// the plan carries none, and the convolution computes in NHWC.
// RUN: spmd-opt %s --spmd-auto-shard="memory-budget=100MB" --spmd-channels-last | FileCheck %s --check-prefix=BUDGET
// RUN: spmd-opt %s --spmd-auto-shard --spmd-channels-last | FileCheck %s --check-prefix=FREE
// BUDGET: module attributes {spmd.memory_budget = 100000000 : i64}
// BUDGET: linalg.conv_2d_nchw_fchw
// BUDGET-NOT: nhwc
// FREE-NOT: spmd.memory_budget
// FREE: linalg.conv_2d_nhwc_hwcf
spmd.mesh @mesh = <["a"=2]>
func.func @conv(%x: tensor<4x3x10x10xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<4x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %w : tensor<4x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32>
  return %c : tensor<4x8x8x8xf32>
}
