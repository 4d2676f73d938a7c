// RUN: spmd-opt %s --spmd-optimize-collectives -split-input-file | FileCheck %s

spmd.mesh @mesh = <["data"=2, "one"=1]>

// Collectives over one device do nothing.
// CHECK-LABEL: func.func @single_device
// CHECK-NOT: spmd.
// CHECK: return %arg0, %arg0
func.func @single_device(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = spmd.all_reduce %x on @mesh axes = ["one"] : tensor<8xf32>
  %1 = spmd.all_gather %x on @mesh axes = [] gather_dim = 0 : tensor<8xf32> -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2]>

// An all_gather and the all_slice that undoes it cancel, either way round.
// CHECK-LABEL: func.func @cancel
// CHECK-NOT: spmd.all
// CHECK: return %arg0, %arg1
func.func @cancel(%x: tensor<4xf32>, %y: tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  %0 = spmd.all_gather %x on @mesh axes = ["data"] gather_dim = 0 : tensor<4xf32> -> tensor<8xf32>
  %1 = spmd.all_slice %0 on @mesh axes = ["data"] slice_dim = 0 : tensor<8xf32> -> tensor<4xf32>
  %2 = spmd.all_slice %y on @mesh axes = ["data"] slice_dim = 0 : tensor<8xf32> -> tensor<4xf32>
  %3 = spmd.all_gather %2 on @mesh axes = ["data"] gather_dim = 0 : tensor<4xf32> -> tensor<8xf32>
  return %1, %3 : tensor<4xf32>, tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=2]>

// Different axes or dimensions do not cancel.
// CHECK-LABEL: func.func @no_cancel
// CHECK: spmd.all_gather
// CHECK: spmd.all_slice
func.func @no_cancel(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = spmd.all_gather %x on @mesh axes = ["data"] gather_dim = 0 : tensor<4xf32> -> tensor<8xf32>
  %1 = spmd.all_slice %0 on @mesh axes = ["model"] slice_dim = 0 : tensor<8xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["data"=2]>

// Identical collectives of one value are done once.
// CHECK-LABEL: func.func @cse
// CHECK: %[[R:.*]] = spmd.all_reduce
// CHECK-NOT: spmd.all_reduce
// CHECK: return %[[R]], %[[R]]
func.func @cse(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = spmd.all_reduce %x on @mesh axes = ["data"] : tensor<8xf32>
  %1 = spmd.all_reduce %x on @mesh axes = ["data"] : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
