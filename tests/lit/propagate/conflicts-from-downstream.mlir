// The documented tie-breaks for an axis two factors of an op want hold
// when one of the wants arrives from downstream after the op was first
// visited (a function result, a later constraint): the round restarts
// without the carriage that blocked the op's choice (found by an
// adversarial run, where the layouts contradicted
// docs/sharding-semantics.md and moved more bytes; numbers were right).
// RUN: spmd-opt %s --spmd-propagate -split-input-file | FileCheck %s

// "model" wanted on k (by %a) and on n (by the result): n keeps it, as it
// leaves no partial results; %b is then split on n, not on k.
// CHECK-LABEL: func.func @reduction_gives_up
// CHECK-SAME: %arg1: tensor<16x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}
spmd.mesh @mesh = <["model"=4]>
func.func @reduction_gives_up(%a: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"model", ?}]>},
             %b: tensor<16x32xf32>) -> (tensor<8x32xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"model"}]>}) {
  %e = tensor.empty() : tensor<8x32xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// FSDP with the batch split asked for on the result: the weight is
// gathered and the activations stay split on the batch.
// CHECK-LABEL: func.func @fsdp_from_result
// CHECK-SAME: %arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}
spmd.mesh @mesh = <["data"=2]>
func.func @fsdp_from_result(%x: tensor<8x16xf32>,
             %w: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", ?}, {?}]>})
    -> (tensor<8x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", ?}, {?}]>}) {
  %e = tensor.empty() : tensor<8x64xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x64xf32>) outs(%f : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

// Rows of a small input against columns of the large result, the latter
// asked for downstream: the larger tensor's split wins.
// CHECK-LABEL: func.func @larger_from_downstream
// CHECK-SAME: %arg1: tensor<16x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}
spmd.mesh @mesh = <["model"=4]>
func.func @larger_from_downstream(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model", ?}, {?}]>},
             %w: tensor<16x4096xf32>) -> tensor<8x4096xf32> {
  %e = tensor.empty() : tensor<8x4096xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x4096xf32>) outs(%f : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %t = math.tanh %y : tensor<8x4096xf32>
  %c = spmd.sharding_constraint %t <@mesh, [{?}, {"model", ?}]> : tensor<8x4096xf32>
  return %c : tensor<8x4096xf32>
}
