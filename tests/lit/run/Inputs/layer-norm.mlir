// Layer norms as importers write them, each with a twin `NAME_ref` whose
// last op adds the zeros of its init, 0 + v = v, and so is left as linalg
// ops: the entry runs oneDNN's kernel, the twin the executor's generics
// (@hidden_split the other way round: run/layer-norm.test says why).
// Written by a script; tests/lit/raise-layer-norm checks which are raised.
spmd.mesh @mesh = <["x"=2, "y"=2]>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>

func.func @split(%x: tensor<64x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 256.0 : f32
  %inv = arith.constant 0.00390625 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<64xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %et = tensor.empty() : tensor<64x256xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x256xf32>) outs(%fr : tensor<64xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<64x256xf32>, tensor<64xf32>) outs(%et : tensor<64x256xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<64x256xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<64x256xf32>) outs(%et : tensor<64x256xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.mulf %a0, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<64x256xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<64x256xf32>) outs(%fr : tensor<64xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %o, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var : tensor<64x256xf32>, tensor<64xf32>) outs(%et : tensor<64x256xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    linalg.yield %q : f32
  } -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

func.func @split_ref(%x: tensor<64x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 256.0 : f32
  %inv = arith.constant 0.00390625 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<64xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %et = tensor.empty() : tensor<64x256xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x256xf32>) outs(%fr : tensor<64xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<64x256xf32>, tensor<64xf32>) outs(%et : tensor<64x256xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<64x256xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<64x256xf32>) outs(%et : tensor<64x256xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.mulf %a0, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<64x256xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<64x256xf32>) outs(%fr : tensor<64xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %o, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<64xf32>
  %ft = linalg.fill ins(%zero : f32) outs(%et : tensor<64x256xf32>) -> tensor<64x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var : tensor<64x256xf32>, tensor<64xf32>) outs(%ft : tensor<64x256xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    %same = arith.addf %q, %o : f32
    linalg.yield %same : f32
  } -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}

func.func @fused_square(%x: tensor<32x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}, %b: tensor<512xf32>) -> tensor<32x512xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 512.0 : f32
  %inv = arith.constant 0.001953125 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<32xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<32xf32>) -> tensor<32xf32>
  %et = tensor.empty() : tensor<32x512xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<32x512xf32>) outs(%fr : tensor<32xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<32xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<32x512xf32>, tensor<32xf32>) outs(%et : tensor<32x512xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.mulf %inv, %a1 : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<32x512xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<32x512xf32>) outs(%fr : tensor<32xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %s = arith.mulf %a0, %a0 : f32
    %q = arith.addf %s, %o : f32
    linalg.yield %q : f32
  } -> tensor<32xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var, %b : tensor<32x512xf32>, tensor<32xf32>, tensor<512xf32>) outs(%et : tensor<32x512xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32, %o: f32):
    %vm = arith.mulf %a1, %inv : f32
    %d = arith.addf %eps, %vm : f32
    %sd = math.sqrt %d : f32
    %s = arith.divf %one, %sd : f32
    %q = arith.mulf %s, %a0 : f32
    %qb = arith.addf %a2, %q : f32
    linalg.yield %qb : f32
  } -> tensor<32x512xf32>
  return %y : tensor<32x512xf32>
}

func.func @fused_square_ref(%x: tensor<32x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}, %b: tensor<512xf32>) -> tensor<32x512xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 512.0 : f32
  %inv = arith.constant 0.001953125 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<32xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<32xf32>) -> tensor<32xf32>
  %et = tensor.empty() : tensor<32x512xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<32x512xf32>) outs(%fr : tensor<32xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<32xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<32x512xf32>, tensor<32xf32>) outs(%et : tensor<32x512xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.mulf %inv, %a1 : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<32x512xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<32x512xf32>) outs(%fr : tensor<32xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %s = arith.mulf %a0, %a0 : f32
    %q = arith.addf %s, %o : f32
    linalg.yield %q : f32
  } -> tensor<32xf32>
  %ft = linalg.fill ins(%zero : f32) outs(%et : tensor<32x512xf32>) -> tensor<32x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var, %b : tensor<32x512xf32>, tensor<32xf32>, tensor<512xf32>) outs(%ft : tensor<32x512xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32, %o: f32):
    %vm = arith.mulf %a1, %inv : f32
    %d = arith.addf %eps, %vm : f32
    %sd = math.sqrt %d : f32
    %s = arith.divf %one, %sd : f32
    %q = arith.mulf %s, %a0 : f32
    %qb = arith.addf %a2, %q : f32
    %same = arith.addf %qb, %o : f32
    linalg.yield %same : f32
  } -> tensor<32x512xf32>
  return %y : tensor<32x512xf32>
}

func.func @divided(%x: tensor<8x1000xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}, %g: tensor<1000xf32>, %b: tensor<1000xf32>) -> tensor<8x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 1000.0 : f32
  %inv = arith.constant 0.001 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 0.5 : f32
  %er = tensor.empty() : tensor<8xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %et = tensor.empty() : tensor<8x1000xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x1000xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<8x1000xf32>, tensor<8xf32>) outs(%et : tensor<8x1000xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<8x1000xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<8x1000xf32>) outs(%et : tensor<8x1000xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.mulf %a0, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<8x1000xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<8x1000xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %o, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var, %g, %b : tensor<8x1000xf32>, tensor<8xf32>, tensor<1000xf32>, tensor<1000xf32>) outs(%et : tensor<8x1000xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32, %a3: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %sd = math.sqrt %d : f32
    %q = arith.divf %a0, %sd : f32
    %qg = arith.mulf %q, %a2 : f32
    %qb = arith.addf %a3, %qg : f32
    linalg.yield %qb : f32
  } -> tensor<8x1000xf32>
  return %y : tensor<8x1000xf32>
}

func.func @divided_ref(%x: tensor<8x1000xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {}]>}, %g: tensor<1000xf32>, %b: tensor<1000xf32>) -> tensor<8x1000xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 1000.0 : f32
  %inv = arith.constant 0.001 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 0.5 : f32
  %er = tensor.empty() : tensor<8xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %et = tensor.empty() : tensor<8x1000xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x1000xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<8x1000xf32>, tensor<8xf32>) outs(%et : tensor<8x1000xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<8x1000xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<8x1000xf32>) outs(%et : tensor<8x1000xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.mulf %a0, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<8x1000xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<8x1000xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %o, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  %ft = linalg.fill ins(%zero : f32) outs(%et : tensor<8x1000xf32>) -> tensor<8x1000xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var, %g, %b : tensor<8x1000xf32>, tensor<8xf32>, tensor<1000xf32>, tensor<1000xf32>) outs(%ft : tensor<8x1000xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32, %a3: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %sd = math.sqrt %d : f32
    %q = arith.divf %a0, %sd : f32
    %qg = arith.mulf %q, %a2 : f32
    %qb = arith.addf %a3, %qg : f32
    %same = arith.addf %qb, %o : f32
    linalg.yield %same : f32
  } -> tensor<8x1000xf32>
  return %y : tensor<8x1000xf32>
}

func.func @hidden_split(%x: tensor<16x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}, %g: tensor<256xf32>) -> tensor<16x256xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 256.0 : f32
  %inv = arith.constant 0.00390625 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<16xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %et = tensor.empty() : tensor<16x256xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x256xf32>) outs(%fr : tensor<16xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<16x256xf32>, tensor<16xf32>) outs(%et : tensor<16x256xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<16x256xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<16x256xf32>) outs(%et : tensor<16x256xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.mulf %a0, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<16x256xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<16x256xf32>) outs(%fr : tensor<16xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %o, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var, %g : tensor<16x256xf32>, tensor<16xf32>, tensor<256xf32>) outs(%et : tensor<16x256xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    %qg = arith.mulf %q, %a2 : f32
    linalg.yield %qg : f32
  } -> tensor<16x256xf32>
  return %y : tensor<16x256xf32>
}

func.func @hidden_split_ref(%x: tensor<16x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %g: tensor<256xf32>) -> tensor<16x256xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 256.0 : f32
  %inv = arith.constant 0.00390625 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<16xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %et = tensor.empty() : tensor<16x256xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x256xf32>) outs(%fr : tensor<16xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<16x256xf32>, tensor<16xf32>) outs(%et : tensor<16x256xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<16x256xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<16x256xf32>) outs(%et : tensor<16x256xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.mulf %a0, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<16x256xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<16x256xf32>) outs(%fr : tensor<16xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %o, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<16xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var, %g : tensor<16x256xf32>, tensor<16xf32>, tensor<256xf32>) outs(%et : tensor<16x256xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    %qg = arith.mulf %q, %a2 : f32
    linalg.yield %qg : f32
  } -> tensor<16x256xf32>
  return %y : tensor<16x256xf32>
}

func.func @wide(%x: tensor<256x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %g: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<256x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 1024.0 : f32
  %inv = arith.constant 0.0009765625 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<256xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<256xf32>) -> tensor<256xf32>
  %et = tensor.empty() : tensor<256x1024xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<256x1024xf32>) outs(%fr : tensor<256xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<256xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<256x1024xf32>, tensor<256xf32>) outs(%et : tensor<256x1024xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<256x1024xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<256x1024xf32>) outs(%et : tensor<256x1024xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.mulf %a0, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<256x1024xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<256x1024xf32>) outs(%fr : tensor<256xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %o, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<256xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var, %g, %b : tensor<256x1024xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024xf32>) outs(%et : tensor<256x1024xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32, %a3: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    %qg = arith.mulf %q, %a2 : f32
    %qb = arith.addf %a3, %qg : f32
    linalg.yield %qb : f32
  } -> tensor<256x1024xf32>
  return %y : tensor<256x1024xf32>
}

func.func @wide_ref(%x: tensor<256x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %g: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<256x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 1024.0 : f32
  %inv = arith.constant 0.0009765625 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<256xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<256xf32>) -> tensor<256xf32>
  %et = tensor.empty() : tensor<256x1024xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<256x1024xf32>) outs(%fr : tensor<256xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %a0, %o : f32
    linalg.yield %q : f32
  } -> tensor<256xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<256x1024xf32>, tensor<256xf32>) outs(%et : tensor<256x1024xf32>) {
  ^bb0(%a0: f32, %a1: f32, %o: f32):
    %m = arith.divf %a1, %n : f32
    %q = arith.subf %a0, %m : f32
    linalg.yield %q : f32
  } -> tensor<256x1024xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<256x1024xf32>) outs(%et : tensor<256x1024xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.mulf %a0, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<256x1024xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%sq : tensor<256x1024xf32>) outs(%fr : tensor<256xf32>) {
  ^bb0(%a0: f32, %o: f32):
    %q = arith.addf %o, %a0 : f32
    linalg.yield %q : f32
  } -> tensor<256xf32>
  %ft = linalg.fill ins(%zero : f32) outs(%et : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %var, %g, %b : tensor<256x1024xf32>, tensor<256xf32>, tensor<1024xf32>, tensor<1024xf32>) outs(%ft : tensor<256x1024xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32, %a3: f32, %o: f32):
    %vm = arith.divf %a1, %n : f32
    %d = arith.addf %vm, %eps : f32
    %s = math.rsqrt %d : f32
    %q = arith.mulf %a0, %s : f32
    %qg = arith.mulf %q, %a2 : f32
    %qb = arith.addf %a3, %qg : f32
    %same = arith.addf %qb, %o : f32
    linalg.yield %same : f32
  } -> tensor<256x1024xf32>
  return %y : tensor<256x1024xf32>
}

func.func @torch(%a: tensor<4x16x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}]>}, %r: tensor<4x16x128xf32>, %g: tensor<128xf32>, %b: tensor<128xf32>) -> tensor<4x16x128xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 128.0 : f32
  %eps = arith.constant 9.9999999999999995E-7 : f32
  %et = tensor.empty() : tensor<4x16x128xf32>
  %ek = tensor.empty() : tensor<4x16x1xf32>
  %fk = linalg.fill ins(%zero : f32) outs(%ek : tensor<4x16x1xf32>) -> tensor<4x16x1xf32>
  %x = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a, %r : tensor<4x16x128xf32>, tensor<4x16x128xf32>) outs(%et : tensor<4x16x128xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x16x128xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #keep], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<4x16x128xf32>) outs(%fk : tensor<4x16x1xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<4x16x1xf32>
  %mean = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sum : tensor<4x16x1xf32>) outs(%ek : tensor<4x16x1xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.divf %p, %n : f32
    linalg.yield %s : f32
  } -> tensor<4x16x1xf32>
  %var = linalg.generic {indexing_maps = [#id3, #keep, #keep], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %mean : tensor<4x16x128xf32>, tensor<4x16x1xf32>) outs(%fk : tensor<4x16x1xf32>) {
  ^bb0(%p: f32, %m: f32, %o: f32):
    %d = arith.subf %p, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %d2, %o : f32
    linalg.yield %s : f32
  } -> tensor<4x16x1xf32>
  %rstd = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%var : tensor<4x16x1xf32>) outs(%ek : tensor<4x16x1xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = arith.divf %p, %n : f32
    %e = arith.addf %v, %eps : f32
    %s = math.rsqrt %e : f32
    linalg.yield %s : f32
  } -> tensor<4x16x1xf32>
  %y = linalg.generic {indexing_maps = [#id3, #keep, #keep, #col3, #col3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %mean, %rstd, %g, %b : tensor<4x16x128xf32>, tensor<4x16x1xf32>, tensor<4x16x1xf32>, tensor<128xf32>, tensor<128xf32>) outs(%et : tensor<4x16x128xf32>) {
  ^bb0(%p: f32, %m: f32, %s: f32, %cg: f32, %cb: f32, %o: f32):
    %d = arith.subf %p, %m : f32
    %ys = arith.mulf %d, %s : f32
    %yb = arith.mulf %ys, %cg : f32
    %y = arith.addf %yb, %cb : f32
    linalg.yield %y : f32
  } -> tensor<4x16x128xf32>
  return %y : tensor<4x16x128xf32>
}

func.func @torch_ref(%a: tensor<4x16x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}, {}]>}, %r: tensor<4x16x128xf32>, %g: tensor<128xf32>, %b: tensor<128xf32>) -> tensor<4x16x128xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 128.0 : f32
  %eps = arith.constant 9.9999999999999995E-7 : f32
  %et = tensor.empty() : tensor<4x16x128xf32>
  %ek = tensor.empty() : tensor<4x16x1xf32>
  %fk = linalg.fill ins(%zero : f32) outs(%ek : tensor<4x16x1xf32>) -> tensor<4x16x1xf32>
  %x = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a, %r : tensor<4x16x128xf32>, tensor<4x16x128xf32>) outs(%et : tensor<4x16x128xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x16x128xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #keep], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<4x16x128xf32>) outs(%fk : tensor<4x16x1xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  } -> tensor<4x16x1xf32>
  %mean = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sum : tensor<4x16x1xf32>) outs(%ek : tensor<4x16x1xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.divf %p, %n : f32
    linalg.yield %s : f32
  } -> tensor<4x16x1xf32>
  %var = linalg.generic {indexing_maps = [#id3, #keep, #keep], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %mean : tensor<4x16x128xf32>, tensor<4x16x1xf32>) outs(%fk : tensor<4x16x1xf32>) {
  ^bb0(%p: f32, %m: f32, %o: f32):
    %d = arith.subf %p, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %d2, %o : f32
    linalg.yield %s : f32
  } -> tensor<4x16x1xf32>
  %rstd = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%var : tensor<4x16x1xf32>) outs(%ek : tensor<4x16x1xf32>) {
  ^bb0(%p: f32, %o: f32):
    %v = arith.divf %p, %n : f32
    %e = arith.addf %v, %eps : f32
    %s = math.rsqrt %e : f32
    linalg.yield %s : f32
  } -> tensor<4x16x1xf32>
  %ft = linalg.fill ins(%zero : f32) outs(%et : tensor<4x16x128xf32>) -> tensor<4x16x128xf32>
  %y = linalg.generic {indexing_maps = [#id3, #keep, #keep, #col3, #col3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %mean, %rstd, %g, %b : tensor<4x16x128xf32>, tensor<4x16x1xf32>, tensor<4x16x1xf32>, tensor<128xf32>, tensor<128xf32>) outs(%ft : tensor<4x16x128xf32>) {
  ^bb0(%p: f32, %m: f32, %s: f32, %cg: f32, %cb: f32, %o: f32):
    %d = arith.subf %p, %m : f32
    %ys = arith.mulf %d, %s : f32
    %yb = arith.mulf %ys, %cg : f32
    %yc = arith.addf %yb, %cb : f32
    %y = arith.addf %yc, %o : f32
    linalg.yield %y : f32
  } -> tensor<4x16x128xf32>
  return %y : tensor<4x16x128xf32>
}

