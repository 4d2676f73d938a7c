// A manual region result whose out_sharding leaves it whole over a manual
// axis is said to be the same on every device along it: spmd-import warns
// where the value yielded may differ along that axis (an in_sharding that
// splits it there, an axis_index, a collective giving each member its own
// part) with no all_reduce, all_gather or broadcast over it after.
// RUN: spmd-opt %s --split-input-file --spmd-import -verify-diagnostics -o /dev/null

spmd.mesh @mesh = <["data"=2, "model"=2]>
// The partial products of a row-split contraction, without their sum.
func.func @partial_sums(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %y = spmd.manual_computation(%x, %w)
      in_shardings = [<@mesh, [{"data"}, {"model"}]>, <@mesh, [{"model"}, {}]>]
      out_shardings = [<@mesh, [{"data"}, {}]>]
      manual_axes = ["data", "model"]
      (%lx: tensor<4x8xf32>, %lw: tensor<8x8xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %p = linalg.matmul ins(%lx, %lw : tensor<4x8xf32>, tensor<8x8xf32>)
                       outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
    // expected-warning @+1 {{result 0 is said to be the same on every device along "model"}}
    spmd.yield %p : tensor<4x8xf32>
  } : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=2]>
// The same summed: no warning. A split over "model" kept split is no claim.
func.func @summed(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> (tensor<8x8xf32>, tensor<8x16xf32>) {
  %y:2 = spmd.manual_computation(%x, %w)
      in_shardings = [<@mesh, [{"data"}, {"model"}]>, <@mesh, [{"model"}, {}]>]
      out_shardings = [<@mesh, [{"data"}, {}]>, <@mesh, [{"data"}, {"model"}]>]
      manual_axes = ["data", "model"]
      (%lx: tensor<4x8xf32>, %lw: tensor<8x8xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %p = linalg.matmul ins(%lx, %lw : tensor<4x8xf32>, tensor<8x8xf32>)
                       outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
    %s = spmd.all_reduce %p on @mesh axes = ["model"] : tensor<4x8xf32>
    spmd.yield %s, %lx : tensor<4x8xf32>, tensor<4x8xf32>
  } : (tensor<8x16xf32>, tensor<16x8xf32>) -> (tensor<8x8xf32>, tensor<8x16xf32>)
  return %y#0, %y#1 : tensor<8x8xf32>, tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["a"=2, "b"=2]>
// A device coordinate read by a generic's body (not an operand of it);
// the input, replicated, yielded as it came.
func.func @coordinate(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y:2 = spmd.manual_computation(%x)
      in_shardings = [<@mesh, [{}]>]
      out_shardings = [<@mesh, [{}]>, <@mesh, [{}]>]
      manual_axes = ["a", "b"]
      (%l: tensor<4xf32>) {
    %i = spmd.axis_index "b" on @mesh : index
    %ii = arith.index_cast %i : index to i64
    %if = arith.sitofp %ii : i64 to f32
    %e = tensor.empty() : tensor<4xf32>
    %plus = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                            iterator_types = ["parallel"]}
        ins(%l : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%v: f32, %o: f32):
      %s = arith.addf %v, %if : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    // expected-warning @+1 {{result 1 is said to be the same on every device along "b"}}
    spmd.yield %l, %plus : tensor<4xf32>, tensor<4xf32>
  } : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %y#0, %y#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>
// A loop that sums over the ring each step, from a sum: its result is the
// same everywhere. One that passes blocks around the ring is not, nor one
// that starts from the device's own block (it may run no step).
func.func @loops(%x: tensor<8xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %y:3 = spmd.manual_computation(%x)
      in_shardings = [<@mesh, [{"x"}]>]
      out_shardings = [<@mesh, [{}]>, <@mesh, [{}]>, <@mesh, [{}]>]
      manual_axes = ["x"]
      (%l: tensor<2xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %first = spmd.all_reduce %l on @mesh axes = ["x"] : tensor<2xf32>
    %sum = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %first) -> tensor<2xf32> {
      %r = spmd.all_reduce %acc on @mesh axes = ["x"] : tensor<2xf32>
      scf.yield %r : tensor<2xf32>
    }
    %ring = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %l) -> tensor<2xf32> {
      %r = spmd.collective_permute %acc on @mesh axes = ["x"] pairs = [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<2xf32>
      scf.yield %r : tensor<2xf32>
    }
    %own = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %l) -> tensor<2xf32> {
      %r = spmd.all_reduce %acc on @mesh axes = ["x"] : tensor<2xf32>
      scf.yield %r : tensor<2xf32>
    }
    // expected-warning @+2 {{result 1 is said to be the same on every device along "x"}}
    // expected-warning @+1 {{result 2 is said to be the same on every device along "x"}}
    spmd.yield %sum, %ring, %own : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  } : (tensor<8xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %y#0, %y#1, %y#2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>
// A loop's index is the same everywhere when its bounds are; a branch
// chosen by the device's coordinate is not, whatever its branches yield,
// nor a while loop whose condition reads the device's own data.
func.func @control(%w: tensor<4x8xf32>, %v: tensor<4xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<2xf32>) {
  %y:3 = spmd.manual_computation(%w, %v)
      in_shardings = [<@mesh, [{}, {}]>, <@mesh, [{"x"}]>]
      out_shardings = [<@mesh, [{}]>, <@mesh, [{}]>, <@mesh, [{}]>]
      manual_axes = ["x"]
      (%lw: tensor<4x8xf32>, %lv: tensor<2xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %ten = arith.constant 10.0 : f32
    %e = tensor.empty() : tensor<8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %rows = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %f) -> tensor<8xf32> {
      %row = tensor.extract_slice %lw[%k, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
      %s = arith.addf %acc, %row : tensor<8xf32>
      scf.yield %s : tensor<8xf32>
    }
    %i = spmd.axis_index "x" on @mesh : index
    %first = arith.cmpi eq, %i, %c0 : index
    %picked = scf.if %first -> tensor<8xf32> {
      scf.yield %rows : tensor<8xf32>
    } else {
      %d = arith.addf %rows, %rows : tensor<8xf32>
      scf.yield %d : tensor<8xf32>
    }
    %ones = arith.constant dense<1.0> : tensor<2xf32>
    %count:2 = scf.while (%cur = %lv, %n = %ones) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
      %x = tensor.extract %cur[%c0] : tensor<2xf32>
      %go = arith.cmpf olt, %x, %ten : f32
      scf.condition(%go) %cur, %n : tensor<2xf32>, tensor<2xf32>
    } do {
    ^bb0(%c: tensor<2xf32>, %m: tensor<2xf32>):
      %c2 = arith.addf %c, %ones : tensor<2xf32>
      %m2 = arith.addf %m, %ones : tensor<2xf32>
      scf.yield %c2, %m2 : tensor<2xf32>, tensor<2xf32>
    }
    // expected-warning @+2 {{result 1 is said to be the same on every device along "x"}}
    // expected-warning @+1 {{result 2 is said to be the same on every device along "x"}}
    spmd.yield %rows, %picked, %count#1 : tensor<8xf32>, tensor<8xf32>, tensor<2xf32>
  } : (tensor<4x8xf32>, tensor<4xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<2xf32>)
  return %y#0, %y#1, %y#2 : tensor<8xf32>, tensor<8xf32>, tensor<2xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>
// A redistribute to a layout that leaves x whole gives every device the
// whole tensor; a split input written over by a fill is not read.
func.func @moves(%a: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %y:2 = spmd.manual_computation(%a)
      in_shardings = [<@mesh, [{"x"}, {}]>]
      out_shardings = [<@mesh, [{}, {}]>, <@mesh, [{}, {}]>]
      manual_axes = ["x"]
      (%la: tensor<4x8xf32>) {
    %r = spmd.redistribute %la on @mesh axes = ["x"] from <@mesh, [{"x"}, {}]> to <@mesh, [{}, {}]> global_shape = [8, 8] : tensor<4x8xf32> -> tensor<8x8xf32>
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8x8xf32>
    %i = spmd.axis_index "x" on @mesh : index
    %ii = arith.index_cast %i : index to i64
    %if = arith.sitofp %ii : i64 to f32
    %own = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
        ins(%r : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%v: f32, %o: f32):
      %s = arith.addf %v, %if : f32
      linalg.yield %s : f32
    } -> tensor<8x8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%own : tensor<8x8xf32>) -> tensor<8x8xf32>
    spmd.yield %r, %f : tensor<8x8xf32>, tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>)
  return %y#0, %y#1 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>
// An init the body does not read still gives the elements the op does not
// write: every step writes element 0 only (an output map that is not onto)
// or no step runs (a reduction over a dimension of size 0), and the rest
// is each device's own block.
func.func @unwritten(%a: tensor<8xf32>, %b: tensor<4xf32>, %z: tensor<4x0xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y:2 = spmd.manual_computation(%a, %b, %z)
      in_shardings = [<@mesh, [{"x"}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>]
      out_shardings = [<@mesh, [{}]>, <@mesh, [{}]>]
      manual_axes = ["x"]
      (%l: tensor<4xf32>, %lb: tensor<4xf32>, %lz: tensor<4x0xf32>) {
    %first = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (0)>],
                             iterator_types = ["parallel"]}
        ins(%lb : tensor<4xf32>) outs(%l : tensor<4xf32>) {
    ^bb0(%v: f32, %o: f32):
      linalg.yield %v : f32
    } -> tensor<4xf32>
    %none = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                            iterator_types = ["parallel", "reduction"]}
        ins(%lz : tensor<4x0xf32>) outs(%l : tensor<4xf32>) {
    ^bb0(%v: f32, %o: f32):
      linalg.yield %v : f32
    } -> tensor<4xf32>
    // expected-warning @+2 {{result 0 is said to be the same on every device along "x"}}
    // expected-warning @+1 {{result 1 is said to be the same on every device along "x"}}
    spmd.yield %first, %none : tensor<4xf32>, tensor<4xf32>
  } : (tensor<8xf32>, tensor<4xf32>, tensor<4x0xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %y#0, %y#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

spmd.mesh @mesh = <["one"=1, "x"=2]>
// Nothing differs along an axis of one device, and a block's size is the
// same on every device: no warning.
func.func @same_everywhere(%a: tensor<4xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %y:2 = spmd.manual_computation(%a, %b)
      in_shardings = [<@mesh, [{"one", "x"}]>, <@mesh, [{}]>]
      out_shardings = [<@mesh, [{}]>, <@mesh, [{}]>]
      manual_axes = ["one", "x"]
      (%l: tensor<2xf32>, %lb: tensor<2xf32>) {
    %i = spmd.axis_index "one" on @mesh : index
    %c0 = arith.constant 0 : index
    %n = tensor.dim %l, %c0 : tensor<2xf32>
    %sum = arith.addi %i, %n : index
    %si = arith.index_cast %sum : index to i64
    %sf = arith.sitofp %si : i64 to f32
    %e = tensor.empty() : tensor<2xf32>
    %f = linalg.fill ins(%sf : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
    %r = arith.mulf %lb, %f : tensor<2xf32>
    %s = spmd.all_reduce %l on @mesh axes = ["x"] : tensor<2xf32>
    spmd.yield %r, %s : tensor<2xf32>, tensor<2xf32>
  } : (tensor<4xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %y#0, %y#1 : tensor<2xf32>, tensor<2xf32>
}
