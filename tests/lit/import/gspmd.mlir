// Tests that spmd-import turns GSPMD/XLA sharding strings (`mhlo.sharding`)
// into meshes and shardings.
// RUN: spmd-opt %s --spmd-import -split-input-file -verify-diagnostics | FileCheck %s

// Shardings of one device order share one mesh: the common refinement of
// their iota orders.
// CHECK: spmd.mesh @mesh = <["axis0"=2, "axis1"=2, "axis2"=2]>
// CHECK-LABEL: func.func @common
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"axis0"}, {"axis1", "axis2"}]>}
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"axis1", "axis2"}, {"axis0"}]>}
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"axis0"}, {}]>}
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"axis0", "axis1"}, {"axis2"}]>}
// CHECK-SAME: -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>})
// CHECK-NOT: mhlo.sharding
func.func @common(%a: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,4]<=[8]}"},
                  %b: tensor<8x8xf32> {mhlo.sharding = "{devices=[4,2]<=[2,4]T(1,0)}"},
                  %c: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"},
                  %d: tensor<8x8xf32> {mhlo.sharding = "{devices=[4,2]<=[8]}"})
    -> (tensor<8x8xf32> {mhlo.sharding = "{replicated}"}) {
  return %a : tensor<8x8xf32>
}

// -----

// An explicit device list that spells a transposed iota (0,4,1,5,2,6,3,7 is
// <=[2,4]T(1,0)) shares the common mesh with the iota forms: two meshes
// kept the operands of one matmul apart.
// CHECK: spmd.mesh @mesh = <["axis0"=2, "axis1"=4]>
// CHECK-NOT: spmd.mesh
// CHECK-LABEL: func.func @explicit_iota
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"axis1"}, {}]>}
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{}, {"axis1"}]>}
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"axis1"}, {"axis0"}]>}
func.func @explicit_iota(%a: tensor<8x8xf32> {mhlo.sharding = "{devices=[4,1,2]0,4,1,5,2,6,3,7 last_tile_dim_replicate}"},
                         %b: tensor<8x8xf32> {mhlo.sharding = "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"},
                         %c: tensor<8x8xf32> {mhlo.sharding = "{devices=[4,2]0,4,1,5,2,6,3,7}"}) {
  return
}

// -----

// An explicit device list that is no iota order gets a mesh of its own
// with those device ids.
// CHECK-DAG: spmd.mesh @mesh = <["t0"=2, "t1"=2], device_ids=[0, 3, 1, 2]>
// CHECK-DAG: spmd.mesh @mesh_1 = <["t0"=4]>
// CHECK-LABEL: func.func @explicit
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"t0"}, {"t1"}]>}
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh_1, [{"t0"}]>}
func.func @explicit(%a: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,2]0,3,1,2}"},
                    %b: tensor<8xf32> {mhlo.sharding = "{devices=[4]0,1,2,3}"}) {
  return
}

// -----

// A name in use is not taken.
// CHECK: spmd.mesh @mesh_1 = <["axis0"=2]>
// CHECK: func.func @mesh
func.func @mesh(%a: tensor<8xf32> {mhlo.sharding = "{devices=[2]<=[2]}"}) {
  return
}

// -----

// expected-error @+1 {{argument #0: invalid GSPMD sharding '{devices=[2,2]0,1,2}': the tile shape has 4 tiles but 3 devices are listed}}
func.func @bad_string(%a: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,2]0,1,2}"}) {
  return
}

// -----

// expected-error @+1 {{tiles 2 dimensions but the tensor has rank 1}}
func.func @bad_rank(%a: tensor<8xf32> {mhlo.sharding = "{devices=[2,2]<=[4]}"}) {
  return
}

// -----

// A non-iota device order with replicated and maximal operands: all on the
// one mesh of the tiled sharding (a mesh of their own would keep them from
// meeting in the add).
// CHECK: spmd.mesh @mesh = <["t0"=2, "t1"=2], device_ids=[0, 3, 1, 2]>
// CHECK-NOT: spmd.mesh
// CHECK-LABEL: func.func @non_iota_with_replicated
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"t0"}, {"t1"}]>}
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}
func.func @non_iota_with_replicated(%a: tensor<8x6xf32> {mhlo.sharding = "{devices=[2,2]0,3,1,2}"},
                                    %b: tensor<8x6xf32> {mhlo.sharding = "{replicated}"},
                                    %c: tensor<8x6xf32> {mhlo.sharding = "{maximal device=0}"}) -> tensor<8x6xf32> {
  %s = arith.addf %a, %b : tensor<8x6xf32>
  %t = arith.addf %s, %c : tensor<8x6xf32>
  return %t : tensor<8x6xf32>
}
