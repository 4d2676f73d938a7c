// RUN: spmd-opt %s -split-input-file --spmd-propagate --spmd-partition | FileCheck %s

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
func.func @loop(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}, %n: index) -> tensor<8x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<8x16xf32>) {
    %b = math.tanh %a : tensor<8x16xf32>
    scf.yield %b : tensor<8x16xf32>
  }
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
func.func @loop_matmul(%x: tensor<8x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                       %w: tensor<64x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}, %n: index) -> tensor<8x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %0 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %f) -> (tensor<8x64xf32>) {
    %m = linalg.matmul ins(%x, %w : tensor<8x64xf32>, tensor<64x64xf32>) outs(%a : tensor<8x64xf32>) -> tensor<8x64xf32>
    scf.yield %m : tensor<8x64xf32>
  }
  return %0 : tensor<8x64xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Both branches deliver the result's layout.
// CHECK-LABEL: func.func @branch
// CHECK: scf.if %{{.*}} -> (tensor<4x16xf32>)
// CHECK:   math.exp %{{.*}} : tensor<4x16xf32>
// CHECK: } else {
// CHECK:   math.log %{{.*}} : tensor<4x16xf32>
func.func @branch(%c: i1, %x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> tensor<8x16xf32> {
  %0 = scf.if %c -> tensor<8x16xf32> {
    %e = math.exp %x : tensor<8x16xf32>
    scf.yield %e : tensor<8x16xf32>
  } else {
    %l = math.log %x : tensor<8x16xf32>
    scf.yield %l : tensor<8x16xf32>
  }
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// Calls pass local values between partitioned functions.
// CHECK-LABEL: func.func @callee
// CHECK-SAME: (%{{.*}}: tensor<4x16xf32> {{.*}}) -> (tensor<4x16xf32>
// CHECK-LABEL: func.func @caller
// CHECK: call @callee(%{{.*}}) : (tensor<4x16xf32>) -> tensor<4x16xf32>
func.func @callee(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = math.tanh %x : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
func.func @caller(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> tensor<8x16xf32> {
  %0 = func.call @callee(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// A constraint reshards where the user asked.
// CHECK-LABEL: func.func @constraint
// CHECK: spmd.all_to_all %{{.*}} on @mesh axes = ["data"] split_dim = 1 concat_dim = 0{{.*}} : tensor<4x16xf32> -> tensor<8x8xf32>
func.func @constraint(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> tensor<8x16xf32> {
  %0 = spmd.sharding_constraint %x <@mesh, [{}, {"data"}]> : tensor<8x16xf32>
  %1 = math.exp %0 : tensor<8x16xf32>
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
func.func @scalar_blocks(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %k: index) -> f32 {
  %c4 = arith.constant 4 : index
  %big = arith.cmpi sge, %k, %c4 : index
  %c6 = arith.constant 6 : index
  %r = scf.execute_region -> f32 {
    cf.cond_br %big, ^high, ^low
  ^high:
    %v = tensor.extract %x[%c6] : tensor<8xf32>
    scf.yield %v : f32
  ^low:
    %w = tensor.extract %x[%k] : tensor<8xf32>
    scf.yield %w : f32
  }
  return %r : f32
}

// CHECK-LABEL: func.func @parallel_reduce
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>
// CHECK: %[[W:.*]] = spmd.all_gather %[[X]] {{.*}} -> tensor<8xf32>
// CHECK: scf.parallel
// CHECK: tensor.extract %[[W]]
// CHECK: scf.reduce
func.func @parallel_reduce(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %v = tensor.extract %x[%i] : tensor<8xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      scf.reduce.return %t : f32
    }
  }
  return %s : f32
}
