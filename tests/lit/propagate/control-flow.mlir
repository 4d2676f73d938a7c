// Tests that spmd-propagate carries shardings through loops, branches and
// calls.
// RUN: spmd-opt %s --spmd-propagate -split-input-file | FileCheck %s

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Loop-carried values, the yield and the results share a sharding; a
// constraint inside the body reaches the init value and the result.
// CHECK-LABEL: func.func @for_loop
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>})
func.func @for_loop(%init: tensor<8x16xf32>, %n: index) -> tensor<8x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<8x16xf32>) {
    %c = spmd.sharding_constraint %acc <@mesh, [{"data"}, {}]> : tensor<8x16xf32>
    %next = arith.addf %c, %c : tensor<8x16xf32>
    scf.yield %next : tensor<8x16xf32>
  }
  // CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>}
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Mixed scalar and tensor loop results: the scalar is rank 0.
// CHECK-LABEL: func.func @for_mixed
// CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, []>, <@mesh, [{"model"}]>]>}
func.func @for_mixed(%t: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}]>}, %n: index) -> (f32, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %0:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %z, %acc = %t) -> (f32, tensor<8xf32>) {
    %next = arith.mulf %acc, %acc : tensor<8xf32>
    scf.yield %s, %next : f32, tensor<8xf32>
  }
  return %0#0, %0#1 : f32, tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// while: inits, before-arguments and yields are tied; so are the condition
// arguments, after-arguments and results.
// CHECK-LABEL: func.func @while_loop
// CHECK: } attributes {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"model"}]>]>}
func.func @while_loop(%t: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}]>}, %stop: i1) -> tensor<8xf32> {
  %0 = scf.while (%a = %t) : (tensor<8xf32>) -> tensor<8xf32> {
    scf.condition(%stop) %a : tensor<8xf32>
  } do {
  ^bb0(%b: tensor<8xf32>):
    %n = arith.negf %b : tensor<8xf32>
    scf.yield %n : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// if: both branches' yields and the result agree; a sharding known in one
// branch reaches the other.
// CHECK-LABEL: func.func @if_else
// CHECK-SAME: %arg1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}]>}
// CHECK-SAME: %arg2: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}]>}
func.func @if_else(%c: i1, %a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %0 = scf.if %c -> tensor<8xf32> {
    %s = spmd.sharding_constraint %a <@mesh, [{"data"}]> : tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  } else {
    scf.yield %b : tensor<8xf32>
  }
  // CHECK: } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}]>]>}
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Calls tie arguments to parameters and results to the callee's results,
// across functions, both ways.
// CHECK-LABEL: func.func @callee
// CHECK-SAME: %{{.*}}: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}
// CHECK-SAME: -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>})
func.func @callee(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = math.tanh %x : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
// CHECK-LABEL: func.func @caller
// CHECK: call @callee{{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>
// CHECK: math.exp {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>
func.func @caller(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> tensor<8x16xf32> {
  %0 = func.call @callee(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = math.exp %0 : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// A function result may be promised a different sharding than the value
// returned: both are kept (the partitioner reshards at the return).
// CHECK-LABEL: func.func @return_reshard
// CHECK-SAME: -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}]>})
// CHECK: math.exp {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}]>]>
func.func @return_reshard(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}]>})
    -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}]>}) {
  %0 = math.exp %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}
