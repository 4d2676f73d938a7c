// Tests that spmd-partition does not split the contraction of a tosa.matmul
// with non-zero zero points over an uneven k: it computes (a - a_zp) *
// (b - b_zp), so zeros in the padding of k (1002 over 4) would add
// a_zp * b_zp each (the padding was zeroed and the partial sums all-reduced:
// a wrong sum). With zero zero points k stays split.
// RUN: spmd-opt %s -split-input-file --spmd-partition | FileCheck %s

spmd.mesh @mesh = <["x"=4]>

// CHECK-LABEL: func.func @zero_points
// CHECK: spmd.all_gather {{.*}} gather_dim = 2
// CHECK: spmd.all_gather {{.*}} gather_dim = 1
// CHECK-NOT: spmd.all_reduce
// CHECK: tosa.matmul {{.*}} : (tensor<1x2x1002xi8>, tensor<1x1002x2xi8>
func.func @zero_points(%arg0: tensor<1x2x1002xi8> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"x"}]>}, %arg1: tensor<1x1002x2xi8> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}]>}) -> (tensor<1x2x2xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {}]>}) {
  %0 = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} : () -> tensor<1xi8>
  %1 = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} : () -> tensor<1xi8>
  %2 = tosa.matmul %arg0, %arg1, %0, %1 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}, {}]>]>} : (tensor<1x2x1002xi8>, tensor<1x1002x2xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2xi32>
  return %2 : tensor<1x2x2xi32>
}

// -----

// Zero zero points: the padding is zeroed and k stays split, one
// all-reduce of the partial sums.
spmd.mesh @mesh = <["x"=4]>

// CHECK-LABEL: func.func @no_zero_points
// CHECK-NOT: spmd.all_gather
// CHECK: tosa.matmul {{.*}} : (tensor<1x2x251xi8>, tensor<1x251x2xi8>
// CHECK: spmd.all_reduce
func.func @no_zero_points(%arg0: tensor<1x2x1002xi8> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"x"}]>}, %arg1: tensor<1x1002x2xi8> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}]>}) -> (tensor<1x2x2xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {}]>}) {
  %0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} : () -> tensor<1xi8>
  %1 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}]>]>} : () -> tensor<1xi8>
  %2 = tosa.matmul %arg0, %arg1, %0, %1 {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {}, {}]>]>} : (tensor<1x2x1002xi8>, tensor<1x1002x2xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2xi32>
  return %2 : tensor<1x2x2xi32>
}
