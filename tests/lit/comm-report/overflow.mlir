// Tests that spmd-comm-report refuses, at the collective, a collective whose
// own counts exceed int64.
// RUN: spmd-opt %s --spmd-comm-report -split-input-file -verify-diagnostics -o /dev/null

// A collective whose own counts exceed int64 is an error at the collective.
spmd.mesh @mesh = <["x"=2]>
func.func @gather(%a: tensor<1152921504606846976xf32>) -> tensor<2305843009213693952xf32> {
  // expected-error @+1 {{the result exceeds 2^63 - 1 bytes: the communication report cannot count it}}
  %0 = spmd.all_gather %a on @mesh axes = ["x"] gather_dim = 0 : tensor<1152921504606846976xf32> -> tensor<2305843009213693952xf32>
  return %0 : tensor<2305843009213693952xf32>
}

// -----

// So is a tensor whose element count alone exceeds int64.
spmd.mesh @mesh = <["x"=2]>
func.func @elements(%a: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  // expected-error @+1 {{the operand exceeds 2^63 - 1 bytes: the communication report cannot count it}}
  %0 = spmd.all_reduce %a on @mesh axes = ["x"] : tensor<4294967296x4294967296xf32>
  return %0 : tensor<4294967296x4294967296xf32>
}

// -----

// And a total that would exceed it: two all_reduces of 2^62 bytes each.
spmd.mesh @mesh = <["x"=2]>
func.func @total(%a: tensor<1152921504606846976xf32>) -> (tensor<1152921504606846976xf32>, tensor<1152921504606846976xf32>) {
  %0 = spmd.all_reduce %a on @mesh axes = ["x"] : tensor<1152921504606846976xf32>
  // expected-error @+1 {{the total volume with this collective exceeds 2^63 - 1 bytes}}
  %1 = spmd.all_reduce %0 on @mesh axes = ["x"] : tensor<1152921504606846976xf32>
  return %0, %1 : tensor<1152921504606846976xf32>, tensor<1152921504606846976xf32>
}
