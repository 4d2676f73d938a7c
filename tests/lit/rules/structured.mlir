// Tests that the sharding rules of structured (linalg) ops are as derived.
// RUN: spmd-opt %s --spmd-test-print-rules | FileCheck %s

// Structured ops: one factor per loop, reductions marked; named ops as
// their generic form; convolution windows need neighbours.
// CHECK-LABEL: func.func @matmul
// CHECK: linalg.matmul {spmd.sharding_rule = "([i, k], [k, j], [i, j]) -> ([i, j]) {i=4, j=2, k=8} reduction={k} pending=[sum]"}
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %m : tensor<4x2xf32>
}

// CHECK-LABEL: func.func @batch_matmul
// CHECK: linalg.batch_matmul {spmd.sharding_rule = "([i, j, l], [i, l, k], [i, j, k]) -> ([i, j, k]) {i=3, j=4, k=2, l=8} reduction={l} pending=[sum]"}
func.func @batch_matmul(%a: tensor<3x4x8xf32>, %b: tensor<3x8x2xf32>, %c: tensor<3x4x2xf32>) -> tensor<3x4x2xf32> {
  %m = linalg.batch_matmul ins(%a, %b : tensor<3x4x8xf32>, tensor<3x8x2xf32>) outs(%c : tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
  return %m : tensor<3x4x2xf32>
}

// CHECK-LABEL: func.func @reduce
// CHECK: linalg.reduce {{.*}}spmd.sharding_rule = "([i, j], [i]) -> ([i]) {i=4, j=8} reduction={j} pending=[sum]"
func.func @reduce(%a: tensor<4x8xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>) outs(%c : tensor<4xf32>) dimensions = [1]
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK: linalg.transpose {{.*}}spmd.sharding_rule = "([j, i], [i, j]) -> ([i, j]) {i=8, j=4}"
func.func @transpose(%a: tensor<4x8xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %t = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%c : tensor<8x4xf32>) permutation = [1, 0]
  return %t : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @conv
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}}spmd.sharding_rule = "([i, j, k, o], [m, n, o, l], [i, j, k, l]) -> ([i, j, k, l]) {i=1, j=6, k=6, l=4, m=3, n=3, o=3} reduction={o} permutation={j, k, m, n} pending=[sum] windows={operand0[1]: 1*j + [0, 2] + 0, operand0[2]: 1*k + [0, 2] + 0}"
func.func @conv(%i: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %o: tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32> {
  %c = linalg.conv_2d_nhwc_hwcf ins(%i, %w : tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) outs(%o : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  return %c : tensor<1x6x6x4xf32>
}

// CHECK-LABEL: func.func @softmax
// CHECK: linalg.softmax {{.*}}spmd.sharding_rule = "([i, j], [i, j]) -> ([i, j]) {i=4, j=8} need_replication={j}"
func.func @softmax(%a: tensor<4x8xf32>, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = linalg.softmax dimension(1) ins(%a : tensor<4x8xf32>) outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// A shifted read (a finite difference) is a window of the output loop;
// each result is pending its own combiner (maxnumf as maxnum), and a body that is not
// `combine(x, acc)` leaves its reductions whole.
// CHECK-LABEL: func.func @shift_and_combiners
// CHECK: linalg.generic {{.*}}spmd.sharding_rule = "([i], [i], [i]) -> ([i]) {i=7} permutation={i} windows={operand0[0]: 1*i + [0, 0] + 1}"
// CHECK: linalg.generic {{.*}}spmd.sharding_rule = "([i, j], [i], [i]) -> ([i], [i]) {i=4, j=8} reduction={j} pending=[maxnum, min]"
// CHECK: linalg.generic {{.*}}spmd.sharding_rule = "([i, j], [i]) -> ([i]) {i=4, j=8} reduction={j} pending=[none]"
#id1 = affine_map<(d0) -> (d0)>
#next = affine_map<(d0) -> (d0 + 1)>
#row = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @shift_and_combiners(%a: tensor<8xf32>, %b: tensor<7xf32>, %m: tensor<4x8xf32>, %r: tensor<4xf32>) -> (tensor<7xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %d = linalg.generic {indexing_maps = [#next, #id1, #id1], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<8xf32>, tensor<7xf32>) outs(%b : tensor<7xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<7xf32>
  %mm:2 = linalg.generic {indexing_maps = [#row, #out, #out], iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<4x8xf32>) outs(%r, %r : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: f32, %hi: f32, %lo: f32):
    %h = arith.maxnumf %x, %hi : f32
    %l = arith.minimumf %x, %lo : f32
    linalg.yield %h, %l : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  %last = linalg.generic {indexing_maps = [#row, #out], iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<4x8xf32>) outs(%r : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %d, %mm#0, %mm#1, %last : tensor<7xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
