// Tests that spmd-import refuses, instead of reading past its end, a list of
// static entries with the run-time marker but too few operands.
// RUN: not spmd-opt %s --spmd-import -split-input-file 2>&1 | FileCheck %s

// A written -9223372036854775808 is the marker of a run-time entry, which
// the verifiers let through: such a list is refused, not read past its end.
func.func @pad(%x: tensor<8x16xf32>) -> tensor<8x?xf32> {
  %z = arith.constant 0.0 : f32
  // CHECK: error: its low padding list has 0 values for 1 run-time entries
  %p = tensor.pad %x low[0, -9223372036854775808] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<8x16xf32> to tensor<8x?xf32>
  return %p : tensor<8x?xf32>
}

// -----

func.func @slice(%x: tensor<8x16xf32>) -> tensor<8x?xf32> {
  // Slices' own verifier refuses it.
  // CHECK: error: expected the number of 'sizes' to match
  %s = tensor.extract_slice %x[0, 0] [8, -9223372036854775808] [1, 1] : tensor<8x16xf32> to tensor<8x?xf32>
  return %s : tensor<8x?xf32>
}
