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
