// Tests that spmd-fuse-elementwise fuses chains of elementwise ops into one
// linalg.generic where each element is read and written once.
// RUN: spmd-opt --spmd-fuse-elementwise --split-input-file %s | FileCheck %s

// A folded batch norm and its ReLU: one generic, splat constants as
// scalars, each element read and written once.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: arith.maximumf
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %c1 = arith.constant dense<0.5> : tensor<8x16xf32>
  %c2 = arith.constant dense<2.0> : tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %c1 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %c2 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.maximumf %p, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %relu : tensor<8x16xf32>
}

// -----

// A value read twice is not fused (it would be computed twice).
// CHECK-LABEL: func.func @shared
// CHECK-COUNT-3: linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @shared(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.exp %p : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.negf %p : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.addf %p, %p : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  return %b, %c : tensor<16xf32>, tensor<16xf32>
}

// -----

// torch-mlir's `x @ w.t()` with the weight an argument: the transpose is
// fused into the matmul, which reads the weight transposed where it lies.
// CHECK-LABEL: func.func @linear
// CHECK: linalg.generic {indexing_maps = [#[[A:.+]], #[[B:.+]], #[[C:.+]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<16x8xf32>)
// CHECK-NOT: linalg.matmul
#t = affine_map<(d0, d1) -> (d1, d0)>
#i = affine_map<(d0, d1) -> (d0, d1)>
func.func @linear(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<8x16xf32>
  %wt = linalg.generic {indexing_maps = [#t, #i], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<16x8xf32>) outs(%et : tensor<8x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    linalg.yield %p : f32
  } -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<4x8xf32>, tensor<8x16xf32>)
                     outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// A transposed constant weight becomes a constant; the matmul stays named.
// CHECK-LABEL: func.func @constant_weight
// CHECK: arith.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT: linalg.generic
// CHECK: linalg.matmul
#t = affine_map<(d0, d1) -> (d1, d0)>
#i = affine_map<(d0, d1) -> (d0, d1)>
func.func @constant_weight(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<2x2xf32>
  %wt = linalg.generic {indexing_maps = [#t, #i], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<2x2xf32>) outs(%et : tensor<2x2xf32>) {
  ^bb0(%p: f32, %o: f32):
    linalg.yield %p : f32
  } -> tensor<2x2xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<3x2xf32>, tensor<2x2xf32>)
                     outs(%f : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Permuted copies of constants of any rank and element type become
// constants: output element (a, b, c) is input element (b, c, a) in both
// functions below, whichever map permutes.
// CHECK-LABEL: func.func @permuted_output
// CHECK: arith.constant dense<{{\[\[\[0, 4, 8\], \[12, 16, 20\]\], \[\[1, 5, 9\], \[13, 17, 21\]\], \[\[2, 6, 10\], \[14, 18, 22\]\], \[\[3, 7, 11\], \[15, 19, 23\]\]\]}}> : tensor<4x2x3xi32>
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @permuted_input
// CHECK: arith.constant dense<{{\[\[\[0, 4, 8\], \[12, 16, 20\]\], \[\[1, 5, 9\], \[13, 17, 21\]\], \[\[2, 6, 10\], \[14, 18, 22\]\], \[\[3, 7, 11\], \[15, 19, 23\]\]\]}}> : tensor<4x2x3xi32>
// CHECK-NOT: linalg.generic
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
func.func @permuted_output() -> tensor<4x2x3xi32> {
  %c = arith.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
  %e = tensor.empty() : tensor<4x2x3xi32>
  %p = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x3x4xi32>) outs(%e : tensor<4x2x3xi32>) {
  ^bb0(%x: i32, %o: i32):
    linalg.yield %x : i32
  } -> tensor<4x2x3xi32>
  return %p : tensor<4x2x3xi32>
}
#perm = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
func.func @permuted_input() -> tensor<4x2x3xi32> {
  %c = arith.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
  %e = tensor.empty() : tensor<4x2x3xi32>
  %p = linalg.generic {indexing_maps = [#perm, #in], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c : tensor<2x3x4xi32>) outs(%e : tensor<4x2x3xi32>) {
  ^bb0(%x: i32, %o: i32):
    linalg.yield %x : i32
  } -> tensor<4x2x3xi32>
  return %p : tensor<4x2x3xi32>
}

// CHECK-LABEL: func.func @transposed_kinds
// CHECK-DAG: arith.constant dense<1.500000e+00> : tensor<3x2xf16>
// CHECK-DAG: arith.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xbf16>
// CHECK-DAG: arith.constant dense<{{\[\[}}true, false], [true, false]]> : tensor<2x2xi1>
// CHECK-NOT: linalg.generic
#t = affine_map<(d0, d1) -> (d1, d0)>
#i = affine_map<(d0, d1) -> (d0, d1)>
func.func @transposed_kinds() -> (tensor<3x2xf16>, tensor<2x2xbf16>, tensor<2x2xi1>) {
  %h = arith.constant dense<1.5> : tensor<2x3xf16>
  %b = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
  %p = arith.constant dense<[[true, true], [false, false]]> : tensor<2x2xi1>
  %eh = tensor.empty() : tensor<3x2xf16>
  %eb = tensor.empty() : tensor<2x2xbf16>
  %ep = tensor.empty() : tensor<2x2xi1>
  %th = linalg.generic {indexing_maps = [#t, #i], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<2x3xf16>) outs(%eh : tensor<3x2xf16>) {
  ^bb0(%x: f16, %o: f16):
    linalg.yield %x : f16
  } -> tensor<3x2xf16>
  %tb = linalg.generic {indexing_maps = [#t, #i], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<2x2xbf16>) outs(%eb : tensor<2x2xbf16>) {
  ^bb0(%x: bf16, %o: bf16):
    linalg.yield %x : bf16
  } -> tensor<2x2xbf16>
  %tp = linalg.generic {indexing_maps = [#t, #i], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<2x2xi1>) outs(%ep : tensor<2x2xi1>) {
  ^bb0(%x: i1, %o: i1):
    linalg.yield %x : i1
  } -> tensor<2x2xi1>
  return %th, %tb, %tp : tensor<3x2xf16>, tensor<2x2xbf16>, tensor<2x2xi1>
}

// -----

// A transposed weight stored as a resource blob (as torch-mlir writes
// weights) is not folded: the copy is fused into the matmul, which reads
// the blob where it lies, transposed, so the executor still sees a
// constant weight.
// CHECK-DAG: #[[WT:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @resource_weight
// CHECK: %[[W:.*]] = arith.constant dense_resource<weights> : tensor<2x2xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[WT]], #{{.+}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%arg0, %[[W]] : tensor<3x2xf32>, tensor<2x2xf32>)
// CHECK-NOT: linalg.matmul
#t = affine_map<(d0, d1) -> (d1, d0)>
#i = affine_map<(d0, d1) -> (d0, d1)>
func.func @resource_weight(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense_resource<weights> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<2x2xf32>
  %wt = linalg.generic {indexing_maps = [#t, #i], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<2x2xf32>) outs(%et : tensor<2x2xf32>) {
  ^bb0(%p: f32, %o: f32):
    linalg.yield %p : f32
  } -> tensor<2x2xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<3x2xf32>, tensor<2x2xf32>)
                     outs(%f : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// An exp feeding a row sum (softmax's denominator) is not fused: the
// reduction kernel recognises the sum only as it is.
// CHECK-LABEL: func.func @reduction_consumer
// CHECK-COUNT-2: linalg.generic
#i = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @reduction_consumer(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %ex = linalg.generic {indexing_maps = [#i, #i], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.exp %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %er = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#i, #r], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.addf %p, %o : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}
