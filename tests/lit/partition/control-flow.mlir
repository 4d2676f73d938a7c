// Tests that spmd-partition carries layouts through loops, branches and
// calls, reshards at constraints, and computes whole on every device the ops
// whose regions it does not rebuild region by region.
// RUN: spmd-opt %s -split-input-file --spmd-partition | FileCheck %s

spmd.mesh @mesh = <["data"=2, "model"=4]>

// A loop-carried value keeps its layout through the loop: local types in
// the loop, no communication.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32> {{.*}}, %[[N:.*]]: index)
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[A:.*]] = %[[X]]) -> (tensor<4x16xf32>)
// CHECK:   %[[B:.*]] = math.tanh %[[A]] : tensor<4x16xf32>
// CHECK:   scf.yield %[[B]] : tensor<4x16xf32>
// CHECK-NOT: = spmd.
// CHECK: return %[[R]]
func.func @loop(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}, %arg1: index) -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = scf.for %arg2 = %c0 to %arg1 step %c1 iter_args(%arg3 = %arg0) -> (tensor<8x16xf32>) {
    %1 = math.tanh %arg3 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>} : tensor<8x16xf32>
    scf.yield %1 : tensor<8x16xf32>
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>}
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// A partial sum produced in a loop is reduced before it is carried: the
// loop-carried layout is the one propagation chose.
// CHECK-LABEL: func.func @loop_matmul
// CHECK: scf.for
// CHECK:   linalg.matmul
// CHECK:   spmd.all_reduce %{{.*}} on @mesh axes = ["model"]{{.*}} : tensor<8x64xf32>
// CHECK:   scf.yield
func.func @loop_matmul(%arg0: tensor<8x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, %arg1: tensor<64x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}, %arg2: index) -> (tensor<8x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} : tensor<8x64xf32>
  %1 = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} ins(%cst : f32) outs(%0 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %2 = scf.for %arg3 = %c0 to %arg2 step %c1 iter_args(%arg4 = %1) -> (tensor<8x64xf32>) {
    %3 = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>} ins(%arg0, %arg1 : tensor<8x64xf32>, tensor<64x64xf32>) outs(%arg4 : tensor<8x64xf32>) -> tensor<8x64xf32>
    scf.yield %3 : tensor<8x64xf32>
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}]>]>}
  return %2 : tensor<8x64xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Both branches deliver the result's layout.
// CHECK-LABEL: func.func @branch
// CHECK: scf.if %{{.*}} -> (tensor<4x16xf32>)
// CHECK:   math.exp %{{.*}} : tensor<4x16xf32>
// CHECK: } else {
// CHECK:   math.log %{{.*}} : tensor<4x16xf32>
func.func @branch(%arg0: i1, %arg1: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  %0 = scf.if %arg0 -> (tensor<8x16xf32>) {
    %1 = math.exp %arg1 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>} : tensor<8x16xf32>
    scf.yield %1 : tensor<8x16xf32>
  } else {
    %1 = math.log %arg1 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>} : tensor<8x16xf32>
    scf.yield %1 : tensor<8x16xf32>
  } {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>}
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Calls pass local values between partitioned functions.
// CHECK-LABEL: func.func @callee
// CHECK-SAME: (%{{.*}}: tensor<4x16xf32> {{.*}}) -> (tensor<4x16xf32>
// CHECK-LABEL: func.func @caller
// CHECK: call @callee(%{{.*}}) : (tensor<4x16xf32>) -> tensor<4x16xf32>
func.func @callee(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  %0 = math.tanh %arg0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>} : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
func.func @caller(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  %0 = call @callee(%arg0) {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"data"}, {}]>]>} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// A constraint reshards where the user asked.
// CHECK-LABEL: func.func @constraint
// CHECK: spmd.all_to_all %{{.*}} on @mesh axes = ["data"] split_dim = 1 concat_dim = 0{{.*}} : tensor<4x16xf32> -> tensor<8x8xf32>
func.func @constraint(%arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"data"}]>}) {
  %0 = spmd.sharding_constraint %arg0 <@mesh, [{}, {"data"}]> : tensor<8x16xf32>
  %1 = math.exp %0 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"data"}]>]>} : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

// Ops whose regions the partitioner does not rebuild region by region (more
// than one block; a terminator with regions, as scf.reduce) are computed
// whole on every device, tensors they read from outside gathered first.
// An op on scalars with such regions was once cloned as scalar code,
// reading the local shard as if it were the whole tensor.
spmd.mesh @mesh = <["x"=4]>

// CHECK-LABEL: func.func @scalar_blocks
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>
// CHECK: %[[W:.*]] = spmd.all_gather %[[X]] {{.*}} -> tensor<8xf32>
// CHECK: scf.execute_region -> f32
// CHECK: tensor.extract %[[W]]
// CHECK: tensor.extract %[[W]]
func.func @scalar_blocks(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %arg1: index) -> f32 {
  %c4 = arith.constant 4 : index
  %0 = arith.cmpi sge, %arg1, %c4 : index
  %c6 = arith.constant 6 : index
  %1 = scf.execute_region -> f32 {
    cf.cond_br %0, ^bb1, ^bb2
  ^bb1:  // pred: ^bb0
    %extracted = tensor.extract %arg0[%c6] : tensor<8xf32>
    scf.yield %extracted : f32
  ^bb2:  // pred: ^bb0
    %extracted_0 = tensor.extract %arg0[%arg1] : tensor<8xf32>
    scf.yield %extracted_0 : f32
  }
  return %1 : f32
}

// CHECK-LABEL: func.func @parallel_reduce
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>
// CHECK: %[[W:.*]] = spmd.all_gather %[[X]] {{.*}} -> tensor<8xf32>
// CHECK: scf.parallel
// CHECK: tensor.extract %[[W]]
// CHECK: scf.reduce
func.func @parallel_reduce(%arg0: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 0.000000e+00 : f32
  %0 = scf.parallel (%arg1) = (%c0) to (%c8) step (%c1) init (%cst) -> f32 {
    %extracted = tensor.extract %arg0[%arg1] : tensor<8xf32>
    scf.reduce(%extracted : f32) {
    ^bb0(%arg2: f32, %arg3: f32):
      %1 = arith.addf %arg2, %arg3 : f32
      scf.reduce.return %1 : f32
    }
  }
  return %0 : f32
}
