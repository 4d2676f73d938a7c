// Tests that spmd-optimize-collectives removes collectives that do nothing,
// cancels pairs that undo each other, and does identical or small
// independent ones together.
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

// -----

spmd.mesh @mesh = <["data"=2]>

// Small independent all_reduces over the same axes become one: operands
// flattened and concatenated, reduced once, split back.
// CHECK-LABEL: func.func @combine
// CHECK: %[[A:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK: %[[B:.*]] = tensor.expand_shape %arg1 [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: %[[C:.*]] = tensor.concat dim(0) %[[A]], %[[B]] : (tensor<32xf32>, tensor<1xf32>) -> tensor<33xf32>
// CHECK: %[[R:.*]] = spmd.all_reduce %[[C]] on @mesh axes = ["data"] : tensor<33xf32>
// CHECK-NOT: spmd.all_reduce
// CHECK: tensor.extract_slice %[[R]][0] [32] [1]
// CHECK: tensor.extract_slice %[[R]][32] [1] [1]
func.func @combine(%x: tensor<4x8xf32>, %s: tensor<f32>) -> (tensor<4x8xf32>, tensor<f32>) {
  %0 = spmd.all_reduce %x on @mesh axes = ["data"] : tensor<4x8xf32>
  %1 = spmd.all_reduce %s on @mesh axes = ["data"] : tensor<f32>
  return %0, %1 : tensor<4x8xf32>, tensor<f32>
}

// -----

spmd.mesh @mesh = <["data"=2]>

// A dependent all_reduce (its operand needs the first result) stays apart,
// as do other reductions.
// CHECK-LABEL: func.func @dependent
// CHECK: spmd.all_reduce %arg0
// CHECK: math.exp
// CHECK: spmd.all_reduce
// CHECK: spmd.all_reduce %arg0 on @mesh axes = ["data"] reduction = max
func.func @dependent(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = spmd.all_reduce %x on @mesh axes = ["data"] : tensor<8xf32>
  %1 = math.exp %0 : tensor<8xf32>
  %2 = spmd.all_reduce %1 on @mesh axes = ["data"] : tensor<8xf32>
  %3 = spmd.all_reduce %x on @mesh axes = ["data"] reduction = max : tensor<8xf32>
  return %2, %3 : tensor<8xf32>, tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2]>

// An all_reduce of an all_reduce's result (as a manual region writes) stays
// after it: combined, the second would read its own result.
// CHECK-LABEL: func.func @chained
// CHECK: %[[A:.*]] = spmd.all_reduce %arg0
// CHECK: spmd.all_reduce %[[A]]
func.func @chained(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = spmd.all_reduce %x on @mesh axes = ["data"] : tensor<8xf32>
  %1 = spmd.all_reduce %0 on @mesh axes = ["data"] : tensor<8xf32>
  return %1 : tensor<8xf32>
}
