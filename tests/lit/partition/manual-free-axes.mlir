// A partly manual region's body is partitioned over the free axes like the
// code around it: the weights stay split over model inside (no gather), the
// collectives on the manual axis split over model as elementwise ops, and
// the gathered dimension stays whole. Where model splits a body tensor
// unevenly (5 over 2), the manual piece crosses the boundary whole and is
// split inside. Both equal their replicated reference under --check.
// RUN: spmd-opt %s --spmd-propagate --spmd-partition | FileCheck %s
// RUN: spmd-run %s --entry=matmul --check | FileCheck %s --check-prefix=CHECKED
// RUN: spmd-run %s --entry=uneven --check | FileCheck %s --check-prefix=CHECKED
// RUN: spmd-run %s --entry=uneven --check --seed=3 | FileCheck %s --check-prefix=CHECKED
// CHECKED-NOT: FAIL
// CHECKED: check: PASS

spmd.mesh @mesh = <["data"=2, "model"=2]>

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: %arg1: tensor<16x4xf32>
// CHECK-NOT: spmd.all_gather {{.*}} axes = ["model"]
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<4x16xf32>, tensor<16x4xf32>)
// CHECK-NEXT: spmd.all_reduce {{.*}} axes = ["data"] reduction = max : tensor<4x4xf32>
// CHECK-NEXT: spmd.all_gather {{.*}} axes = ["data"] gather_dim = 0 : tensor<4x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: tensor.extract_slice {{.*}} : tensor<8x4xf32> to tensor<4x4xf32>
// CHECK-NEXT: return
// Manual over data; the weights and the result split over model inside.
func.func @matmul(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %r = spmd.manual_computation(%x, %w)
      in_shardings = [<@mesh, [{"data"}, {}]>, <@mesh, [{}, {"model"}]>]
      out_shardings = [<@mesh, [{"data"}, {"model"}]>]
      manual_axes = ["data"]
      (%lx: tensor<4x16xf32>, %lw: tensor<16x8xf32>) {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %m = linalg.matmul ins(%lx, %lw : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
    %s = spmd.all_reduce %m on @mesh axes = ["data"] reduction = max : tensor<4x8xf32>
    %g = spmd.all_gather %s on @mesh axes = ["data"] gather_dim = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
    %t = tensor.extract_slice %g[2, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
    spmd.yield %t : tensor<4x8xf32>
  } : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// CHECK-LABEL: func.func @uneven
// CHECK: spmd.redistribute %arg0 {{.*}} -> tensor<6x5xf32>
// CHECK: spmd.all_to_all {{.*}} : tensor<6x5xf32> -> tensor<3x10xf32>
// CHECK: spmd.all_to_all {{.*}} : tensor<3x10xf32> -> tensor<6x5xf32>
// CHECK: arith.addf {{.*}} : tensor<3x5xf32>
// The free axis splits the gathered dimension outside: it is whole inside
// for the gather, and uneven (5 over 2 devices) at the boundary.
func.func @uneven(%x: tensor<12x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}) -> tensor<12x5xf32> {
  %r = spmd.manual_computation(%x)
      in_shardings = [<@mesh, [{"data"}, {"model"}]>]
      out_shardings = [<@mesh, [{"data", "model"}, {}]>]
      manual_axes = ["data"]
      (%l: tensor<6x5xf32>) {
    %g = spmd.all_to_all %l on @mesh axes = ["data"] split_dim = 0 concat_dim = 1 : tensor<6x5xf32> -> tensor<3x10xf32>
    %h = spmd.all_to_all %g on @mesh axes = ["data"] split_dim = 1 concat_dim = 0 : tensor<3x10xf32> -> tensor<6x5xf32>
    %e = arith.addf %h, %l : tensor<6x5xf32>
    spmd.yield %e : tensor<6x5xf32>
  } : (tensor<12x5xf32>) -> tensor<12x5xf32>
  return %r : tensor<12x5xf32>
}
