// A layer norm at module level, outside any function (a body of an
// unregistered op's region would be the same): raised, and nothing to
// take dead code from but the module.
// RUN: spmd-opt %s --allow-unregistered-dialect --spmd-raise-layer-norm | FileCheck %s
// CHECK: spmd.layer_norm
// CHECK-NOT: linalg.generic

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

%x0 = arith.constant dense<1.5> : tensor<64x64xf32>
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<64xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %et = tensor.empty() : tensor<64x64xf32>
  
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x0 : tensor<64x64xf32>) outs(%fr : tensor<64xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x0, %sum : tensor<64x64xf32>, tensor<64xf32>) outs(%et : tensor<64x64xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<64x64xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<64x64xf32>) outs(%fr : tensor<64xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %s = arith.mulf %a0, %a0 : f32
    %q = arith.addf %s, %o : f32
    linalg.yield %q : f32
  } -> tensor<64xf32>
  
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var : tensor<64x64xf32>, tensor<64xf32>) outs(%et : tensor<64x64xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    linalg.yield %q : f32
  } -> tensor<64x64xf32>

"test.use"(%y) : (tensor<64x64xf32>) -> ()
