// Tests that the sharding rules of tensor ops are as derived.
// RUN: spmd-opt %s --spmd-test-print-rules | FileCheck %s

// Tensor ops: element access, gathers, casts, new tensors.
// CHECK-LABEL: func.func @ops
// CHECK: tensor.empty() {spmd.sharding_rule = "() -> ([i, j]) {i=8, j=4}"}
// CHECK: tensor.extract {{.*}}spmd.sharding_rule = "([i, j], [], []) -> ([]) {i=8, j=4} need_replication={i, j}"
// CHECK: tensor.insert {{.*}}spmd.sharding_rule = "([], [i, j], [], []) -> ([i, j]) {i=8, j=4}"
// CHECK: tensor.cast {{.*}}spmd.sharding_rule = "([i, j]) -> ([i, j]) {i=8, j=4}"
// CHECK: tensor.gather {{.*}}spmd.sharding_rule = "([k, l], [i, j]) -> ([i, 1, l]) {i=3, j=1, k=8, l=4} need_replication={j, k}"
func.func @ops(%a: tensor<8x4xf32>, %idx: tensor<3x1xindex>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<3x1x4xf32>) {
  %e = tensor.empty() : tensor<8x4xf32>
  %c0 = arith.constant 0 : index
  %x = tensor.extract %a[%c0, %c0] : tensor<8x4xf32>
  %i = tensor.insert %x into %e[%c0, %c0] : tensor<8x4xf32>
  %d = tensor.cast %a : tensor<8x4xf32> to tensor<8x4xf32>
  %g = tensor.gather %a[%idx] gather_dims([0]) : (tensor<8x4xf32>, tensor<3x1xindex>) -> tensor<3x1x4xf32>
  return %i, %d, %g : tensor<8x4xf32>, tensor<8x4xf32>, tensor<3x1x4xf32>
}

// Tensors made from scalars: a splat is free, from_elements lists its
// elements in order and stays whole, constants are free (their trait).
// CHECK-LABEL: func.func @made
// CHECK: tensor.splat {{.*}}spmd.sharding_rule = "([]) -> ([i, j]) {i=2, j=3}"
// CHECK: tensor.from_elements {{.*}}spmd.sharding_rule = "([], [], [], []) -> ([i]) {i=4} need_replication={i}"
// CHECK: arith.constant {spmd.sharding_rule = "() -> ([i]) {i=2}"}
// CHECK: "tosa.const"{{.*}}spmd.sharding_rule = "() -> ([i]) {i=2}"
func.func @made(%s: f32) -> (tensor<2x3xf32>, tensor<4xf32>, tensor<2xf32>, tensor<2xf32>) {
  %splat = tensor.splat %s : tensor<2x3xf32>
  %list = tensor.from_elements %s, %s, %s, %s : tensor<4xf32>
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %t = "tosa.const"() {values = dense<[3.0, 4.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  return %splat, %list, %c, %t : tensor<2x3xf32>, tensor<4xf32>, tensor<2xf32>, tensor<2xf32>
}
