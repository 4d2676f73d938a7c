// Kernels writing one result into an init that dies there take the init's
// buffer: a transpose into an empty holds the input and one buffer of the
// output's size (64 KiB), not a second one beside the empty (96 KiB).
// RUN: spmd-run %s --report=%t.json --check | FileCheck %s --check-prefix=VERDICT
// RUN: FileCheck %s < %t.json
// VERDICT: check: PASS
// CHECK: "peak_buffer_bytes": [
// CHECK-NEXT: 65536
// CHECK-NEXT: ]
// An init the op also reads is not written as it is read: the transpose of
// [[2, 3], [4, 5]] into itself.
// RUN: spmd-run %s --entry=twice --outputs=%t.out
// RUN: python3 %S/../../tools/npy_print.py %t.out/result0.npy | FileCheck %s --check-prefix=TWICE
// TWICE: result0.npy: 2.0 4.0 3.0 5.0

func.func @main(%x: tensor<64x128xf32>) -> tensor<128x64xf32> {
  %e = tensor.empty() : tensor<128x64xf32>
  %t = linalg.transpose ins(%x : tensor<64x128xf32>) outs(%e : tensor<128x64xf32>) permutation = [1, 0]
  return %t : tensor<128x64xf32>
}

func.func @twice() -> tensor<2x2xf32> {
  %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %a, %one : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %t = linalg.transpose ins(%y : tensor<2x2xf32>) outs(%y : tensor<2x2xf32>) permutation = [1, 0]
  return %t : tensor<2x2xf32>
}
