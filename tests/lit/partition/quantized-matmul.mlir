// RUN: spmd-opt %s --spmd-pipeline --split-input-file | FileCheck %s

// tosa.matmul computes (a - a_zp) * (b - b_zp): with non-zero zero points,
// zeros in the padding of an uneven k (1002 over 4) would add a_zp * b_zp
// each, so k is not split (the inputs are gathered). The padding was
// zeroed and the partial sums all-reduced: a wrong sum.
spmd.mesh @mesh = <["x"=4]>
// CHECK-LABEL: func.func @zero_points
// CHECK: spmd.all_gather {{.*}} gather_dim = 2
// CHECK: spmd.all_gather {{.*}} gather_dim = 1
// CHECK-NOT: spmd.all_reduce
// CHECK: tosa.matmul {{.*}} : (tensor<1x2x1002xi8>, tensor<1x1002x2xi8>
func.func @zero_points(%a: tensor<1x2x1002xi8> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"x"}]>}, %b: tensor<1x1002x2xi8> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}]>}) -> tensor<1x2x2xi32> {
  %za = "tosa.const"() {values = dense<3> : tensor<1xi8>} : () -> tensor<1xi8>
  %zb = "tosa.const"() {values = dense<5> : tensor<1xi8>} : () -> tensor<1xi8>
  %m = tosa.matmul %a, %b, %za, %zb : (tensor<1x2x1002xi8>, tensor<1x1002x2xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2xi32>
  return %m : tensor<1x2x2xi32>
}

// -----

// Zero zero points: the padding is zeroed and k stays split, one
// all-reduce of the partial sums.
spmd.mesh @mesh = <["x"=4]>
// CHECK-LABEL: func.func @no_zero_points
// CHECK-NOT: spmd.all_gather
// CHECK: tosa.matmul {{.*}} : (tensor<1x2x251xi8>, tensor<1x251x2xi8>
// CHECK: spmd.all_reduce
func.func @no_zero_points(%a: tensor<1x2x1002xi8> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"x"}]>}, %b: tensor<1x1002x2xi8> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}]>}) -> tensor<1x2x2xi32> {
  %za = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %zb = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %m = tosa.matmul %a, %b, %za, %zb : (tensor<1x2x1002xi8>, tensor<1x1002x2xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2xi32>
  return %m : tensor<1x2x2xi32>
}
