// TOSA reductions over a split axis leave pending values that an
// all_reduce of the op's kind combines (an uneven split pads the input
// with the reduction's identity); over an unsplit axis they stay split.
// RUN: spmd-run %s --entry=sum --check | FileCheck %s
// RUN: spmd-run %s --entry=maxes --check | FileCheck %s
// RUN: spmd-run %s --entry=product --check | FileCheck %s
// CHECK: check: PASS
// RUN: spmd-opt %s --spmd-pipeline 2>&1 | FileCheck %s --check-prefix=LOCAL
// LOCAL-LABEL: func.func @sum
// LOCAL: tosa.reduce_sum {{.*}} -> tensor<2x1xf32>
// LOCAL: spmd.all_reduce {{.*}} axes = ["model"] {{.*}}: tensor<2x1xf32>
// LOCAL-LABEL: func.func @maxes
// LOCAL: tosa.reduce_max {{.*}} -> tensor<2x1xf32>
// LOCAL: tosa.reduce_min {{.*}} -> tensor<2x1xf32>
// LOCAL: spmd.all_reduce {{.*}} axes = ["model"] reduction = max
// LOCAL: spmd.all_reduce {{.*}} axes = ["model"] reduction = minnum
// LOCAL-LABEL: func.func @product
// LOCAL: tosa.reduce_product {{.*}} {axis = 0 : i32} {{.*}} -> tensor<1x2xf32>
// LOCAL: tosa.reduce_product {{.*}} {axis = 1 : i32} {{.*}} -> tensor<2x1xf32>
// LOCAL: spmd.all_reduce {{.*}} axes = ["model", "data"] reduction = prod
spmd.mesh @mesh = <["data"=2, "model"=2]>

// Axis 1, 7 columns over "model": uneven.
func.func @sum(%x: tensor<4x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>}) -> tensor<4x1xf32> {
  %r = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<4x7xf32>) -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}

func.func @maxes(%x: tensor<4x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>}) -> (tensor<4x1xf32>, tensor<4x1xf32>) {
  %m = tosa.reduce_max %x {axis = 1 : i32} : (tensor<4x7xf32>) -> tensor<4x1xf32>
  %n = tosa.reduce_min %x {axis = 1 : i32, nan_mode = #tosa<nan_mode<IGNORE>>} : (tensor<4x7xf32>) -> tensor<4x1xf32>
  return %m, %n : tensor<4x1xf32>, tensor<4x1xf32>
}

// Axis 0 is not split: that product stays split over both axes; the
// product over axis 1 is combined over both.
func.func @product(%x: tensor<2x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model", "data"}]>}) -> (tensor<1x8xf32>, tensor<2x1xf32>) {
  %p = tosa.reduce_product %x {axis = 0 : i32} : (tensor<2x8xf32>) -> tensor<1x8xf32>
  %q = tosa.reduce_product %x {axis = 1 : i32} : (tensor<2x8xf32>) -> tensor<2x1xf32>
  return %p, %q : tensor<1x8xf32>, tensor<2x1xf32>
}
