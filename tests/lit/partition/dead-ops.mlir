// Tests that spmd-partition removes a partitioned op whose result nobody
// uses (with a body that reads global positions) together with its body,
// whose ops are not visited again (freed memory was read: heap corruption on
// some programs).
// RUN: spmd-opt %s --spmd-partition | FileCheck %s

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
spmd.mesh @mesh = <["x"=2]>

// CHECK-LABEL: func.func @main
// CHECK-NOT: linalg.generic
// CHECK: return %arg1
func.func @main(%arg0: tensor<8x4x5xi64> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"x"}]>}, %arg1: tensor<3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) -> (tensor<3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %cst = arith.constant 3.000000e+38 : f32
  %0 = tensor.empty() {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"x"}]>]>} : tensor<4x5xf32>
  %1 = linalg.fill {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"x"}]>]>} ins(%cst : f32) outs(%0 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel", "parallel"]} ins(%arg0 : tensor<8x4x5xi64>) outs(%1 : tensor<4x5xf32>) attrs =  {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"x"}]>]>} {
  ^bb0(%in: i64, %out: f32):
    %3 = linalg.index 1 : index
    %4 = linalg.index 2 : index
    %5 = arith.cmpi ule, %4, %3 : index
    %6 = arith.sitofp %in : i64 to f32
    %cst_0 = arith.constant -3.000000e+00 : f32
    %7 = arith.select %5, %6, %cst_0 : f32
    %8 = arith.minimumf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<4x5xf32>
  return %arg1 : tensor<3xf32>
}
