// Tests that spmd-drop-shardings leaves the program for one device: no
// sharding on arguments, results or ops, constraints replaced by their
// inputs, meshes gone (also after import, through the pipeline's
// one-device option); and that it refuses, naming the op, what the devices
// of a mesh run together and a module already partitioned.
// RUN: spmd-opt %s --split-input-file --spmd-drop-shardings -verify-diagnostics | FileCheck %s
// RUN: spmd-opt %s --split-input-file --spmd-pipeline=one-device=true -verify-diagnostics | FileCheck %s --check-prefix=PIPE

// CHECK-NOT: spmd.mesh
// CHECK-LABEL: func.func @f(%{{.*}}: tensor<8x4xf32>, %{{.*}}: tensor<4xf32>) -> tensor<8x4xf32>
// CHECK-NOT: spmd.
// CHECK: return
// PIPE-LABEL: func.func @f
// PIPE-NOT: spmd.
// PIPE: return
spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @f(%a: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>},
             %b: tensor<4xf32>)
    -> (tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) {
  %c = spmd.sharding_constraint %a <@mesh, [{"x", "y"}, {}]> : tensor<8x4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%c, %b : tensor<8x4xf32>, tensor<4xf32>) outs(%e : tensor<8x4xf32>)
      attrs = {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %g : tensor<8x4xf32>
}

// -----

// Upstream shard annotations are imported first, then dropped.
// PIPE-LABEL: func.func @imported
// PIPE-NOT: shard.
// PIPE-NOT: spmd.
// PIPE: return
// CHECK-LABEL: func.func @imported
shard.grid @grid(shape = 2)
func.func @imported(%a: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %r = shard.shard %a to %s : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>
func.func @region(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'spmd.manual_computation' runs on the devices of @mesh together: the program has no form for one device}}
  %r = spmd.manual_computation(%a) in_shardings = [<@mesh, [{"x"}]>]
      out_shardings = [<@mesh, [{"x"}]>] manual_axes = ["x"]
      (%l: tensor<2xf32>) {
    %s = spmd.all_reduce %l on @mesh axes = ["x"] reduction = sum : tensor<2xf32>
    spmd.yield %s : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// expected-error @+1 {{the module is already partitioned: it has no form for one device}}
module attributes {spmd.partitioned} {
  func.func @local(%a: tensor<2xf32>) -> tensor<2xf32> {
    return %a : tensor<2xf32>
  }
}
