// Tests that spmd-import turns paddings, offsets, strides and output shapes
// written as SSA constants into static entries.
// RUN: spmd-opt %s --spmd-import -split-input-file -verify-diagnostics | FileCheck %s

// Paddings, offsets, strides and output shapes written as SSA constants (as
// IREE's TensorFlow importer writes them) become static entries, so that no
// later reader takes them for values known only at run time.
// CHECK-LABEL: func.func @pad
// CHECK: tensor.pad %arg0 low[0, 1, 0] high[0, 0, 2]
func.func @pad(%x: tensor<2x4x6xf32>) -> tensor<2x5x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[%c0, %c1, %c0] high[%c0, %c0, %c2] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %zero : f32
  } : tensor<2x4x6xf32> to tensor<2x5x8xf32>
  return %p : tensor<2x5x8xf32>
}

// -----

// CHECK-LABEL: func.func @slices
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[1, 0] [4, 4] [1, 2] : tensor<8x8xf32> to tensor<4x4xf32>
// CHECK: tensor.insert_slice %[[S]] into %arg0[4, 4] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x8xf32>
func.func @slices(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %s = tensor.extract_slice %x[%c1, %c0] [4, 4] [%c1, %c2] : tensor<8x8xf32> to tensor<4x4xf32>
  %i = tensor.insert_slice %s into %x[%c4, %c4] [4, 4] [%c1, 1] : tensor<4x4xf32> into tensor<8x8xf32>
  return %i : tensor<8x8xf32>
}

// -----

// CHECK-LABEL: func.func @expand
// CHECK: tensor.expand_shape %arg0 {{\[\[}}0, 1], [2]] output_shape [4, 8, 16]
func.func @expand(%x: tensor<32x16xf32>) -> tensor<4x8x16xf32> {
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %e = tensor.expand_shape %x [[0, 1], [2]] output_shape [%c4, %c8, 16] : tensor<32x16xf32> into tensor<4x8x16xf32>
  return %e : tensor<4x8x16xf32>
}

// -----

// Values that are not constants stay values; inside regions too.
// CHECK-LABEL: func.func @dynamic
// CHECK: scf.for %[[I:[a-z0-9]+]] =
// CHECK: tensor.extract_slice %arg0[%[[I]], 2] [1, 4] [1, 1]
func.func @dynamic(%x: tensor<8x8xf32>, %acc: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %acc) -> tensor<1x4xf32> {
    %s = tensor.extract_slice %x[%i, %c2] [1, 4] [1, 1] : tensor<8x8xf32> to tensor<1x4xf32>
    scf.yield %s : tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}

// -----

// Constants that contradict the op's type are an error at the op.
func.func @contradiction(%x: tensor<8xf32>) -> tensor<10xf32> {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{specified type 'tensor<10xf32>' does not match the inferred type 'tensor<9xf32>'}}
  %p = tensor.pad %x low[0] high[%c1] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<8xf32> to tensor<10xf32>
  return %p : tensor<10xf32>
}
