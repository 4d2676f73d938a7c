// A layer norm in a loop that also yields its variance, which a second
// layer norm after the loop fills with zeros for its row sums. Raising
// the second leaves the loop unused: it is erased with the ops the first
// layer norm replaced inside it (none of which may be visited after).
// RUN: spmd-opt %s --spmd-fuse-elementwise --spmd-raise-layer-norm | FileCheck %s

// CHECK-LABEL: func.func @f(
// CHECK-NOT: scf.for
// CHECK-NOT: linalg
// CHECK: %[[Y:.*]] = spmd.layer_norm %arg0 epsilon
// CHECK-NEXT: return %[[Y]]
func.func @f(%x: tensor<8x64xf32>, %x0: tensor<8x64xf32>, %v0: tensor<8xf32>) -> tensor<8x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x0, %vv = %v0) -> (tensor<8x64xf32>, tensor<8xf32>) {
    %zero = arith.constant 0.0 : f32
    %n = arith.constant 64.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %er = tensor.empty() : tensor<8xf32>
    %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
    %et = tensor.empty() : tensor<8x64xf32>
    %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<8x64xf32>) outs(%fr : tensor<8xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %q = arith.addf %a0, %o : f32
      linalg.yield %q : f32
    } -> tensor<8xf32>
    %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %sum : tensor<8x64xf32>, tensor<8xf32>) outs(%et : tensor<8x64xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %m = arith.divf %a1, %n : f32
      %q = arith.subf %a0, %m : f32
      linalg.yield %q : f32
    } -> tensor<8x64xf32>
    %var = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<8x64xf32>) outs(%fr : tensor<8xf32>) {
    ^bb0(%a0: f32, %o: f32):
      %s = arith.mulf %a0, %a0 : f32
      %q = arith.addf %s, %o : f32
      linalg.yield %q : f32
    } -> tensor<8xf32>
    %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c, %var : tensor<8x64xf32>, tensor<8xf32>) outs(%et : tensor<8x64xf32>) {
    ^bb0(%a0: f32, %a1: f32, %o: f32):
      %vm = arith.divf %a1, %n : f32
      %d = arith.addf %vm, %eps : f32
      %s = math.rsqrt %d : f32
      %v = arith.mulf %a0, %s : f32
      linalg.yield %v : f32
    } -> tensor<8x64xf32>
    scf.yield %y, %var : tensor<8x64xf32>, tensor<8xf32>
  }
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<8xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%r#1 : tensor<8xf32>) -> tensor<8xf32>
  %et = tensor.empty() : tensor<8x64xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<8x64xf32>, tensor<8xf32>) outs(%et : tensor<8x64xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<8x64xf32>
  %var = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<8x64xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %s = arith.mulf %a0, %a0 : f32
    %q = arith.addf %s, %o : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c, %var : tensor<8x64xf32>, tensor<8xf32>) outs(%et : tensor<8x64xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %v = arith.mulf %a0, %s : f32
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
