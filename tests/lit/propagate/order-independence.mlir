// Propagation's decisions do not depend on the order wants reach an op
// (found by an adversarial run of the first withdrawal scheme; each case
// is a program written twice, or a rule a second op used to undo).
// RUN: spmd-opt %s --spmd-propagate -split-input-file | FileCheck %s

// Two ops disagree on %a: tanh gives "model" to its columns (from %wq,
// 32768 elements), the second matmul to its rows (from the result, 8192
// elements; k, a reduction, gives way). The stronger want holds; the
// other op reshards. The heads stay split up to the output projection.
// CHECK-LABEL: func.func @sp
// CHECK-SAME: %arg2: tensor<256x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}
// CHECK: math.tanh {{.*}}[{}, {"model"}]
spmd.mesh @mesh = <["model"=4]>
func.func @sp(%x: tensor<64x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model", ?}, {?}]>},
              %wq: tensor<128x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"model", ?}]>},
              %wo: tensor<256x128xf32>)
    -> (tensor<64x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {?}]>}) {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x256xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f1 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %a = math.tanh %q : tensor<64x256xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.matmul ins(%a, %wo : tensor<64x256xf32>, tensor<256x128xf32>) outs(%f2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

// Loop-carried values share one sharding, extended by agreeing sources:
// the init's "a" and the body's ["a", "b"] give ["a", "b"] to all of them.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: %arg0: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}, {?}]>}
// CHECK: math.tanh {{.*}}[{"a", "b"}, {}]
spmd.mesh @mesh = <["a"=2, "b"=2]>
func.func @loop(%init: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}]>},
                %w: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}, {?}]>},
                %n: index) -> tensor<8x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<8x16xf32>) {
    %next = arith.addf %acc, %w : tensor<8x16xf32>
    scf.yield %next : tensor<8x16xf32>
  }
  %r = math.tanh %0 : tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// Agreeing sources: a dimension is as strong as the strongest (%big), in
// either operand order, so the result's weaker want for "a" on dim 1 gives
// way in both functions.
// CHECK-LABEL: func.func @small_first
// CHECK: arith.addf {{.*}}[{"a"}, {}]
// CHECK-LABEL: func.func @big_first
// CHECK: arith.addf {{.*}}[{"a"}, {}]
spmd.mesh @mesh = <["a"=4]>
func.func @small_first(%s: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>},
                       %big: tensor<8x4096x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}, {?}]>})
    -> (tensor<8x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"a"}]>}) {
  %e = tensor.empty() : tensor<8x4096xf32>
  %b = linalg.broadcast ins(%s : tensor<8xf32>) outs(%e : tensor<8x4096xf32>) dimensions = [1]
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x4096xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %r = linalg.reduce ins(%big : tensor<8x4096x4xf32>) outs(%f : tensor<8x4096xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %s2 = arith.addf %in, %acc : f32
      linalg.yield %s2 : f32
    }
  %t = arith.addf %b, %r : tensor<8x4096xf32>
  return %t : tensor<8x4096xf32>
}
func.func @big_first(%s: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}]>},
                       %big: tensor<8x4096x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}, {?}, {?}]>})
    -> (tensor<8x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{?}, {"a"}]>}) {
  %e = tensor.empty() : tensor<8x4096xf32>
  %b = linalg.broadcast ins(%s : tensor<8xf32>) outs(%e : tensor<8x4096xf32>) dimensions = [1]
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<8x4096xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %r = linalg.reduce ins(%big : tensor<8x4096x4xf32>) outs(%f : tensor<8x4096xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %s2 = arith.addf %in, %acc : f32
      linalg.yield %s2 : f32
    }
  %t = arith.addf %r, %b : tensor<8x4096xf32>
  return %t : tensor<8x4096xf32>
}

// -----

// A later round does not change what an earlier one decided: in round p0
// "a" goes to i (512 elements against 64), so %v (j only) stays whole
// when the p1 source of i comes first as when it comes last.
// CHECK-LABEL: func.func @p1_first
// CHECK-SAME: %arg3: tensor<64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}
// CHECK-LABEL: func.func @p0_first
// CHECK-SAME: %arg3: tensor<64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}
spmd.mesh @mesh = <["a"=4]>
func.func @p1_first(%q1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}p1]>},
    %q0: tensor<8x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}p0, {?}]>},
    %w: tensor<64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}p0]>},
    %v: tensor<64xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q1, %q0, %w, %v : tensor<8xf32>, tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %x2: f32, %x3: f32, %o: f32):
    %s0 = arith.addf %x0, %x1 : f32
    %s1 = arith.addf %s0, %x2 : f32
    %s2 = arith.addf %s1, %x3 : f32
    linalg.yield %s2 : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}
func.func @p0_first(%q1: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}p1]>},
    %q0: tensor<8x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}p0, {?}]>},
    %w: tensor<64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}p0]>},
    %v: tensor<64xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%q0, %q1, %w, %v : tensor<8x64xf32>, tensor<8xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%x0: f32, %x1: f32, %x2: f32, %x3: f32, %o: f32):
    %s0 = arith.addf %x0, %x1 : f32
    %s1 = arith.addf %s0, %x2 : f32
    %s2 = arith.addf %s1, %x3 : f32
    linalg.yield %s2 : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// -----

// A written priority is printed as written, after its dimension is
// extended by a source of a lower priority number.
// CHECK-LABEL: func.func @f
// CHECK-SAME: {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b", ?}p1, {?}]>}
spmd.mesh @mesh = <["a"=2, "b"=2]>
func.func @f(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}p1, {?}]>},
             %z: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}p0, {?}]>}) -> tensor<8x16xf32> {
  %u = arith.addf %x, %z : tensor<8x16xf32>
  return %u : tensor<8x16xf32>
}

// -----

// A withdrawal takes back the strength the withdrawn axes gave: %x's dim
// 0, written p1, is extended by a p0 "b" that is then withdrawn (a larger
// p0 source wants "a" on %y's other dimension), and must not act as a p0
// source afterwards. In round p1 the larger %d then wins %q's dim 1,
// whether the extension comes before the withdrawal or after it.
// CHECK-LABEL: func.func @extended_first
// CHECK-SAME: %arg3: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"a"}]>}
// CHECK-LABEL: func.func @withdrawn_first
// CHECK-SAME: %arg3: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"a"}]>}
spmd.mesh @mesh = <["a"=2, "b"=2]>
func.func @extended_first(%z: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}p0, {?}]>},
                %x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}p1, {?}]>},
                %b: tensor<16x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}p0, {?}]>},
                %q: tensor<8x16xf32>,
                %d: tensor<16x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}p1, {?}]>})
    -> (tensor<8x16xf32>, tensor<8x16x1024xf32>, tensor<8x16xf32>, tensor<8x16x4096xf32>) {
  %y = arith.negf %z : tensor<8x16xf32>
  %r = arith.addf %x, %y : tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16x1024xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j, k)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y, %b : tensor<8x16xf32>, tensor<16x1024xf32>) outs(%e : tensor<8x16x1024xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<8x16x1024xf32>
  %v2 = arith.addf %x, %q : tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16x4096xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j, k)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q, %d : tensor<8x16xf32>, tensor<16x4096xf32>) outs(%e2 : tensor<8x16x4096xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<8x16x4096xf32>
  return %r, %g, %v2, %h : tensor<8x16xf32>, tensor<8x16x1024xf32>, tensor<8x16xf32>, tensor<8x16x4096xf32>
}
func.func @withdrawn_first(%z: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", "b"}p0, {?}]>},
                %x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a", ?}p1, {?}]>},
                %b: tensor<16x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}p0, {?}]>},
                %q: tensor<8x16xf32>,
                %d: tensor<16x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}p1, {?}]>})
    -> (tensor<8x16xf32>, tensor<8x16x1024xf32>, tensor<8x16xf32>, tensor<8x16x4096xf32>) {
  %y = arith.negf %z : tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16x1024xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j, k)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y, %b : tensor<8x16xf32>, tensor<16x1024xf32>) outs(%e : tensor<8x16x1024xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<8x16x1024xf32>
  %r = arith.addf %x, %y : tensor<8x16xf32>
  %v2 = arith.addf %x, %q : tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16x4096xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j, k)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q, %d : tensor<8x16xf32>, tensor<16x4096xf32>) outs(%e2 : tensor<8x16x4096xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<8x16x4096xf32>
  return %r, %g, %v2, %h : tensor<8x16xf32>, tensor<8x16x1024xf32>, tensor<8x16xf32>, tensor<8x16x4096xf32>
}
