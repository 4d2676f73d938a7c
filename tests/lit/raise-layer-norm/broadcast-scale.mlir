// The scale broadcast to the whole tensor by a generic used twice (so not
// fused): the layer norm's scale is the column vector it reads, not the
// broadcast (a copy's tree is its operand's leaf, which keeps its tensor).
// RUN: spmd-opt %s --spmd-fuse-elementwise --spmd-raise-layer-norm | FileCheck %s
// CHECK: spmd.layer_norm %arg0 scale %arg1 : tensor<8xf32> epsilon = 9.99999974E-6 : tensor<4x8xf32>

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
func.func @bcast(%x: tensor<4x8xf32>, %g: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %eg = tensor.empty() : tensor<4x8xf32>
  %gb = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%g : tensor<8xf32>) outs(%eg : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x8xf32>
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
  %y = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var, %gb : tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>) outs(%et : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    %qq = arith.mulf %q, %a2 : f32
    linalg.yield %qq : f32
  } -> tensor<4x8xf32>
  return %y, %gb : tensor<4x8xf32>, tensor<4x8xf32>
}

