// Tests that spmd-propagate replicates the results of an op without a rule,
// with a remark, and goes on around it.
// RUN: spmd-opt %s --spmd-propagate -allow-unregistered-dialect -verify-diagnostics -split-input-file | FileCheck %s

spmd.mesh @mesh = <["data"=2, "model"=4]>

// An op without a rule is not an error: its results are replicated and a
// remark names it. Propagation goes on around it.
// CHECK-LABEL: func.func @unknown_op
// CHECK: "test.mystery"{{.*}}#spmd.sharding_per_value<[<@mesh, [{}, {}]>]>
// CHECK: math.exp {{.*}}#spmd.sharding_per_value<[<@mesh, [{}, {}]>]>
// CHECK: math.exp {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>
func.func @unknown_op(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  // expected-remark @+1 {{no sharding rule for 'test.mystery': its operands and results are replicated}}
  %0 = "test.mystery"(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = math.exp %0 : tensor<8x16xf32>
  %2 = math.exp %x : tensor<8x16xf32>
  return %1, %2 : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// A call to an external function has no body to propagate through.
// CHECK-LABEL: func.func @external_call
// CHECK: call @opaque{{.*}}#spmd.sharding_per_value<[<@mesh, [{}]>]>
func.func private @opaque(tensor<8xf32>) -> tensor<8xf32>
func.func @external_call(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}]>}) -> tensor<8xf32> {
  // expected-remark @+1 {{no sharding rule for 'func.call'}}
  %0 = func.call @opaque(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// No mesh, nothing to do: the module is unchanged.
// CHECK-LABEL: func.func @no_mesh
// CHECK-NOT: spmd.sharding
func.func @no_mesh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = math.exp %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Dynamic shapes have no rule; the static values around them still get
// shardings.
// CHECK-LABEL: func.func @dynamic
// CHECK: math.exp {{.*}}#spmd.sharding_per_value<[<@mesh, [{"data"}]>]>
func.func @dynamic(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}]>}) -> tensor<?xf32> {
  %0 = math.exp %x : tensor<8xf32>
  // expected-remark @+1 {{no sharding rule for 'tensor.cast'}}
  %1 = tensor.cast %0 : tensor<8xf32> to tensor<?xf32>
  return %1 : tensor<?xf32>
}
