// NaN through reductions split over devices: each device reduces its
// block, then a collective combines the blocks, which must follow the
// body's NaN rule (maximumf/minimumf: a NaN wins; maxnumf/minnumf: NaNs are
// ignored, and a row of NaNs stays NaN). The maxnumf and minnumf
// reductions start from NaN, which they ignore too, so every device starts
// from it.
spmd.mesh @mesh = <["x"=4]>

// Row 1 holds one NaN, in the last device's block: the maximum is NaN.
func.func @max_nan_late(%a: tensor<4x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>})
    -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %e = tensor.empty() : tensor<4x16xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %c14 = arith.constant 14 : index
    %ri = arith.cmpi eq, %i, %c1 : index
    %rj = arith.cmpi eq, %j, %c14 : index
    %at = arith.andi %ri, %rj : i1
    %nan = arith.constant 0x7FC00000 : f32
    %v = arith.select %at, %nan, %x : f32
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  %init = arith.constant 0xFF800000 : f32
  %r0 = tensor.empty() : tensor<4xf32>
  %r1 = linalg.fill ins(%init : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%n : tensor<4x16xf32>) outs(%r1 : tensor<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %m = arith.maximumf %x, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<4xf32>
}

// The same for the minimum.
func.func @min_nan_late(%a: tensor<4x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>})
    -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %e = tensor.empty() : tensor<4x16xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %c14 = arith.constant 14 : index
    %ri = arith.cmpi eq, %i, %c1 : index
    %rj = arith.cmpi eq, %j, %c14 : index
    %at = arith.andi %ri, %rj : i1
    %nan = arith.constant 0x7FC00000 : f32
    %v = arith.select %at, %nan, %x : f32
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  %init = arith.constant 0x7F800000 : f32
  %r0 = tensor.empty() : tensor<4xf32>
  %r1 = linalg.fill ins(%init : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%n : tensor<4x16xf32>) outs(%r1 : tensor<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %m = arith.minimumf %x, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<4xf32>
}

// Row 1 is NaN in the whole of the first device's block: maxnumf ignores
// them, so that device's NaN must not win the collective.
func.func @maxnum_nan_block(%a: tensor<4x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>})
    -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %e = tensor.empty() : tensor<4x16xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %ri = arith.cmpi eq, %i, %c1 : index
    %rj = arith.cmpi ult, %j, %c4 : index
    %at = arith.andi %ri, %rj : i1
    %nan = arith.constant 0x7FC00000 : f32
    %v = arith.select %at, %nan, %x : f32
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  %init = arith.constant 0x7FC00000 : f32
  %r0 = tensor.empty() : tensor<4xf32>
  %r1 = linalg.fill ins(%init : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%n : tensor<4x16xf32>) outs(%r1 : tensor<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %m = arith.maxnumf %x, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<4xf32>
}

// The same for the minimum.
func.func @minnum_nan_block(%a: tensor<4x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>})
    -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %e = tensor.empty() : tensor<4x16xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %ri = arith.cmpi eq, %i, %c1 : index
    %rj = arith.cmpi ult, %j, %c4 : index
    %at = arith.andi %ri, %rj : i1
    %nan = arith.constant 0x7FC00000 : f32
    %v = arith.select %at, %nan, %x : f32
    linalg.yield %v : f32
  } -> tensor<4x16xf32>
  %init = arith.constant 0x7FC00000 : f32
  %r0 = tensor.empty() : tensor<4xf32>
  %r1 = linalg.fill ins(%init : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%n : tensor<4x16xf32>) outs(%r1 : tensor<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %m = arith.minnumf %x, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<4xf32>
}

// Row 2 is all NaN, over an uneven split (15 over 4 devices: the last
// block is padded): the padding must not turn the NaNs into a number.
func.func @maxnum_nan_row(%a: tensor<4x15xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>})
    -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %e = tensor.empty() : tensor<4x15xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x15xf32>) outs(%e : tensor<4x15xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c2 = arith.constant 2 : index
    %at = arith.cmpi eq, %i, %c2 : index
    %nan = arith.constant 0x7FC00000 : f32
    %v = arith.select %at, %nan, %x : f32
    linalg.yield %v : f32
  } -> tensor<4x15xf32>
  %init = arith.constant 0x7FC00000 : f32
  %r0 = tensor.empty() : tensor<4xf32>
  %r1 = linalg.fill ins(%init : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%n : tensor<4x15xf32>) outs(%r1 : tensor<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %m = arith.maxnumf %x, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<4xf32>
}
