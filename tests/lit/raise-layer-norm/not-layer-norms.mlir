// RUN: spmd-opt %s --split-input-file --spmd-raise-layer-norm | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
// The plain form at this size is raised; each case after it changes one
// thing that makes it no layer norm (or none oneDNN computes) and is not.
// CHECK-LABEL: func.func @plain
// CHECK-NOT: linalg
// CHECK: spmd.layer_norm %arg0 epsilon = 9.99999974E-6 : tensor<4x8xf32>
// CHECK-NOT: linalg
// CHECK: return
func.func @plain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 8.0 : f32
  %inv = arith.constant 0.125 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<4xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %et = tensor.empty() : tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%fr : tensor<4xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x8xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.mulf %a0, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<4x8xf32>) outs(%fr : tensor<4xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %o, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var : tensor<4x8xf32>, tensor<4xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @wrong_count
// CHECK-NOT: spmd.layer_norm
// CHECK: return
func.func @wrong_count(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 7.0 : f32
  %inv = arith.constant 0.14285714285714285 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<4xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %et = tensor.empty() : tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%fr : tensor<4xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x8xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.mulf %a0, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<4x8xf32>) outs(%fr : tensor<4xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %o, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var : tensor<4x8xf32>, tensor<4xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @sum_from_one
// CHECK-NOT: spmd.layer_norm
// CHECK: return
func.func @sum_from_one(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 1.0 : f32
  %n = arith.constant 8.0 : f32
  %inv = arith.constant 0.125 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<4xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %et = tensor.empty() : tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%fr : tensor<4xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x8xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.mulf %a0, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<4x8xf32>) outs(%fr : tensor<4xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %o, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var : tensor<4x8xf32>, tensor<4xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @f64
// CHECK-NOT: spmd.layer_norm
// CHECK: return
func.func @f64(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %zero = arith.constant 0.0 : f64
  %n = arith.constant 8.0 : f64
  %inv = arith.constant 0.125 : f64
  %one = arith.constant 1.0 : f64
  %eps = arith.constant 1.0e-5 : f64
  %er = tensor.empty() : tensor<4xf64>
  %fr = linalg.fill ins(%zero : f64) outs(%er : tensor<4xf64>) -> tensor<4xf64>
  %et = tensor.empty() : tensor<4x8xf64>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf64>) outs(%fr : tensor<4xf64>) {
  ^bb0(%a0: f64, %o: f64):
    %q = arith.addf %a0, %o : f64
    linalg.yield %q : f64
  } -> tensor<4xf64>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<4x8xf64>, tensor<4xf64>) outs(%et : tensor<4x8xf64>) {
  ^bb0(%a0: f64, %a1: f64, %o: f64):
    %m = arith.divf %a1, %n : f64
    %q = arith.subf %a0, %m : f64
    linalg.yield %q : f64
  } -> tensor<4x8xf64>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x8xf64>) outs(%et : tensor<4x8xf64>) {
  ^bb0(%a0: f64, %o: f64):
    %q = arith.mulf %a0, %a0 : f64
    linalg.yield %q : f64
  } -> tensor<4x8xf64>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<4x8xf64>) outs(%fr : tensor<4xf64>) {
  ^bb0(%a0: f64, %o: f64):
    %q = arith.addf %o, %a0 : f64
    linalg.yield %q : f64
  } -> tensor<4xf64>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var : tensor<4x8xf64>, tensor<4xf64>) outs(%et : tensor<4x8xf64>) {
  ^bb0(%a0: f64, %a1: f64, %o: f64):
    %vm = arith.divf %a1, %n : f64
    %d = arith.addf %vm, %eps : f64
    %s = math.rsqrt %d : f64
    %q = arith.mulf %a0, %s : f64
    linalg.yield %q : f64
  } -> tensor<4x8xf64>
  return %y : tensor<4x8xf64>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @mean_of_another
// CHECK-NOT: spmd.layer_norm
// CHECK: return
func.func @mean_of_another(%x: tensor<4x8xf32>, %z2: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 8.0 : f32
  %inv = arith.constant 0.125 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<4xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %et = tensor.empty() : tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%z2 : tensor<4x8xf32>) outs(%fr : tensor<4xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x8xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.mulf %a0, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<4x8xf32>) outs(%fr : tensor<4xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %o, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var : tensor<4x8xf32>, tensor<4xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @uncentred_variance
// CHECK-NOT: spmd.layer_norm
// CHECK: return
func.func @uncentred_variance(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 8.0 : f32
  %inv = arith.constant 0.125 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<4xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %et = tensor.empty() : tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%fr : tensor<4xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.mulf %a0, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<4x8xf32>) outs(%fr : tensor<4xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %o, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var : tensor<4x8xf32>, tensor<4xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @scale_per_row
// CHECK-NOT: spmd.layer_norm
// CHECK: return
func.func @scale_per_row(%x: tensor<4x8xf32>, %g: tensor<4xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 8.0 : f32
  %inv = arith.constant 0.125 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<4xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %et = tensor.empty() : tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%fr : tensor<4xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x8xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.mulf %a0, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<4x8xf32>) outs(%fr : tensor<4xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %o, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var, %g : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    %qg = arith.mulf %q, %a2 : f32
    linalg.yield %qg : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}



// -----

// The scale read as g2[0, j] of a 4x64 tensor: per column, but not a tensor
// of one row's elements (spmd.layer_norm would refuse it).
// CHECK-LABEL: func.func @scale_from_a_matrix
// CHECK-NOT: spmd.layer_norm
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col0 = affine_map<(d0, d1) -> (0, d1)>
func.func @scale_from_a_matrix(%x: tensor<8x64xf32>, %g2: tensor<4x64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<8xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %et = tensor.empty() : tensor<8x64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<8x64xf32>, tensor<8xf32>) outs(%et : tensor<8x64xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<8x64xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<8x64xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %s = arith.mulf %a0, %a0 : f32
    %q = arith.addf %s, %o : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col0, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var, %g2 : tensor<8x64xf32>, tensor<8xf32>, tensor<4x64xf32>) outs(%et : tensor<8x64xf32>) {
  ^bb0(%a0: f32, %a1: f32, %g: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    %qg = arith.mulf %q, %g : f32
    linalg.yield %qg : f32
  } -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// x[i, j] = r[i], and the mean's row sum runs over 100 columns (its loop
// bounds come from %w), not the 256 it is divided by.
// CHECK-LABEL: func.func @short_row_sum
// CHECK-NOT: spmd.layer_norm
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @short_row_sum(%r: tensor<8xf32>, %w: tensor<8x100xf32>, %z: tensor<8x256xf32>) -> (tensor<8x256xf32>, tensor<8x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 256.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<8xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %et = tensor.empty() : tensor<8x256xf32>
  // x = r broadcast (+ 0)
  %x = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<8xf32>) outs(%et : tensor<8x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.addf %a, %zero : f32
    linalg.yield %q : f32
  } -> tensor<8x256xf32>
  // "sum" of x over a row: sums r[i]+0 over 100 columns only
  %sum = linalg.generic {indexing_maps = [#row, #id, #row], iterator_types = ["parallel", "reduction"]} ins(%r, %w : tensor<8xf32>, tensor<8x100xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.addf %a, %zero : f32
    %q = arith.addf %t, %o : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<8x256xf32>, tensor<8xf32>) outs(%et : tensor<8x256xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<8x256xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<8x256xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %s = arith.mulf %a0, %a0 : f32
    %q = arith.addf %s, %o : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var, %z : tensor<8x256xf32>, tensor<8xf32>, tensor<8x256xf32>) outs(%et : tensor<8x256xf32>) {
  ^bb0(%a0: f32, %a1: f32, %zz: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    linalg.yield %q : f32
  } -> tensor<8x256xf32>
  return %y, %x : tensor<8x256xf32>, tensor<8x256xf32>
}
