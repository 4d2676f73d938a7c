// Every collective in a fully manual region over a 2x2 mesh, each result
// against its twin written without a region (run on one device).
spmd.mesh @mesh = <["x"=2, "y"=2]>

func.func @manual(%a: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x4xf32>, tensor<16x4xf32>) {
  %r:5 = spmd.manual_computation(%a)
      in_shardings = [<@mesh, [{"x"}, {"y"}]>]
      out_shardings = [<@mesh, [{}, {"y"}]>, <@mesh, [{"x"}, {"y"}]>, <@mesh, [{"x"}, {"y"}]>, <@mesh, [{"x"}, {"y"}]>, <@mesh, [{"x"}, {"y"}]>]
      manual_axes = ["x", "y"]
      (%l: tensor<4x4xf32>) {
    %g = spmd.all_gather %l on @mesh axes = ["x"] gather_dim = 0 : tensor<4x4xf32> -> tensor<8x4xf32>
    %i = spmd.axis_index "x" on @mesh : index
    %ii = arith.index_cast %i : index to i64
    %if = arith.sitofp %ii : i64 to f32
    %e = tensor.empty() : tensor<4x4xf32>
    %plus = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                            iterator_types = ["parallel", "parallel"]}
        ins(%l : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
    ^bb0(%v: f32, %o: f32):
      %s = arith.addf %v, %if : f32
      linalg.yield %s : f32
    } -> tensor<4x4xf32>
    %p = spmd.collective_permute %l on @mesh axes = ["x"] pairs = [0 -> 1, 1 -> 0] : tensor<4x4xf32>
    %rs = spmd.reduce_scatter %l on @mesh axes = ["y"] scatter_dim = 1 : tensor<4x4xf32> -> tensor<4x2xf32>
    %t = spmd.all_to_all %l on @mesh axes = ["y"] split_dim = 1 concat_dim = 0 : tensor<4x4xf32> -> tensor<8x2xf32>
    spmd.yield %g, %plus, %p, %rs, %t : tensor<8x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x2xf32>, tensor<8x2xf32>
  } : (tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x4xf32>, tensor<16x4xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x4xf32>, tensor<16x4xf32>
}

func.func @manual_ref(%a: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x4xf32>, tensor<16x4xf32>) {
  // The gather over x of a block of columns: the input itself.
  // Plus the row block's x coordinate.
  %blocks = tensor.expand_shape %a [[0, 1], [2]] output_shape [2, 4, 8] : tensor<8x8xf32> into tensor<2x4x8xf32>
  %e3 = tensor.empty() : tensor<2x4x8xf32>
  %plus3 = linalg.generic {indexing_maps = [affine_map<(xb, r, j) -> (xb, r, j)>, affine_map<(xb, r, j) -> (xb, r, j)>],
                           iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%blocks : tensor<2x4x8xf32>) outs(%e3 : tensor<2x4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %xb = linalg.index 0 : index
    %ii = arith.index_cast %xb : index to i64
    %if = arith.sitofp %ii : i64 to f32
    %s = arith.addf %v, %if : f32
    linalg.yield %s : f32
  } -> tensor<2x4x8xf32>
  %plus = tensor.collapse_shape %plus3 [[0, 1], [2]] : tensor<2x4x8xf32> into tensor<8x8xf32>
  // Row blocks swapped.
  %top = tensor.extract_slice %a[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  %bottom = tensor.extract_slice %a[4, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %p0 = tensor.insert_slice %bottom into %e[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x8xf32>
  %p = tensor.insert_slice %top into %p0[4, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x8xf32>
  // The two column blocks summed.
  %left = tensor.extract_slice %a[0, 0] [8, 4] [1, 1] : tensor<8x8xf32> to tensor<8x4xf32>
  %right = tensor.extract_slice %a[0, 4] [8, 4] [1, 1] : tensor<8x8xf32> to tensor<8x4xf32>
  %rs = arith.addf %left, %right : tensor<8x4xf32>
  // Device (xb, yp) receives columns yp*2.. of each y block yy, stacked.
  %pieces = tensor.expand_shape %a [[0, 1], [2, 3, 4]] output_shape [2, 4, 2, 2, 2] : tensor<8x8xf32> into tensor<2x4x2x2x2xf32>
  %e5 = tensor.empty() : tensor<2x2x4x2x2xf32>
  %moved = linalg.transpose ins(%pieces : tensor<2x4x2x2x2xf32>) outs(%e5 : tensor<2x2x4x2x2xf32>) permutation = [0, 2, 1, 3, 4]
  %t = tensor.collapse_shape %moved [[0, 1, 2], [3, 4]] : tensor<2x2x4x2x2xf32> into tensor<16x4xf32>
  return %a, %plus, %p, %rs, %t : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x4xf32>, tensor<16x4xf32>
}

// Partly manual: manual over x only. The body is global over y, where the
// operand is split and the result is wanted split; automatic ops on both
// sides. The result is replicated over x: every x device yields the same.
func.func @partly(%a: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %twice = arith.addf %a, %a : tensor<8x8xf32>
  %s = spmd.manual_computation(%twice)
      in_shardings = [<@mesh, [{"x"}, {"y"}]>]
      out_shardings = [<@mesh, [{}, {"y"}]>]
      manual_axes = ["x"]
      (%l: tensor<4x8xf32>) {
    %r = spmd.all_reduce %l on @mesh axes = ["x"] : tensor<4x8xf32>
    %m = arith.mulf %r, %r : tensor<4x8xf32>
    spmd.yield %m : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e4 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%s, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}


func.func @partly_ref(%a: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %twice = arith.addf %a, %a : tensor<8x8xf32>
  %top = tensor.extract_slice %twice[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  %bottom = tensor.extract_slice %twice[4, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  %r = arith.addf %top, %bottom : tensor<4x8xf32>
  %s = arith.mulf %r, %r : tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e4 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%s, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// A product over x, of floats and of integers (which wrap).
func.func @prod(%a: tensor<8x4xf32>, %b: tensor<8x4xi32>) -> (tensor<4x4xf32>, tensor<4x4xi32>) {
  %r:2 = spmd.manual_computation(%a, %b)
      in_shardings = [<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>]
      out_shardings = [<@mesh, [{}, {}]>, <@mesh, [{}, {}]>]
      manual_axes = ["x"]
      (%la: tensor<4x4xf32>, %lb: tensor<4x4xi32>) {
    %pa = spmd.all_reduce %la on @mesh axes = ["x"] reduction = prod : tensor<4x4xf32>
    %pb = spmd.all_reduce %lb on @mesh axes = ["x"] reduction = prod : tensor<4x4xi32>
    spmd.yield %pa, %pb : tensor<4x4xf32>, tensor<4x4xi32>
  } : (tensor<8x4xf32>, tensor<8x4xi32>) -> (tensor<4x4xf32>, tensor<4x4xi32>)
  return %r#0, %r#1 : tensor<4x4xf32>, tensor<4x4xi32>
}

func.func @prod_ref(%a: tensor<8x4xf32>, %b: tensor<8x4xi32>) -> (tensor<4x4xf32>, tensor<4x4xi32>) {
  %a0 = tensor.extract_slice %a[0, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
  %a1 = tensor.extract_slice %a[4, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
  %b0 = tensor.extract_slice %b[0, 0] [4, 4] [1, 1] : tensor<8x4xi32> to tensor<4x4xi32>
  %b1 = tensor.extract_slice %b[4, 0] [4, 4] [1, 1] : tensor<8x4xi32> to tensor<4x4xi32>
  %pa = arith.mulf %a0, %a1 : tensor<4x4xf32>
  %pb = arith.muli %b0, %b1 : tensor<4x4xi32>
  return %pa, %pb : tensor<4x4xf32>, tensor<4x4xi32>
}

// Broadcast from group position 2 of x*y; a max onto position 1 of each y
// group and a sum onto position 0 of each x group (the others keep their
// blocks).
func.func @rooted(%a: tensor<8x4xf32>, %b: tensor<8x4xi32>) -> (tensor<2x4xf32>, tensor<8x4xf32>, tensor<8x4xi32>) {
  %r:3 = spmd.manual_computation(%a, %b)
      in_shardings = [<@mesh, [{"x", "y"}, {}]>, <@mesh, [{"x", "y"}, {}]>]
      out_shardings = [<@mesh, [{}, {}]>, <@mesh, [{"x", "y"}, {}]>, <@mesh, [{"x", "y"}, {}]>]
      manual_axes = ["x", "y"]
      (%la: tensor<2x4xf32>, %lb: tensor<2x4xi32>) {
    %bc = spmd.broadcast %la on @mesh axes = ["x", "y"] root = 2 : tensor<2x4xf32>
    %mx = spmd.reduce %la on @mesh axes = ["y"] root = 1 reduction = max : tensor<2x4xf32>
    %sm = spmd.reduce %lb on @mesh axes = ["x"] root = 0 : tensor<2x4xi32>
    spmd.yield %bc, %mx, %sm : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xi32>
  } : (tensor<8x4xf32>, tensor<8x4xi32>) -> (tensor<2x4xf32>, tensor<8x4xf32>, tensor<8x4xi32>)
  return %r#0, %r#1, %r#2 : tensor<2x4xf32>, tensor<8x4xf32>, tensor<8x4xi32>
}

// Block k (of device x*2+y) is rows 2k, 2k+1.
func.func @rooted_ref(%a: tensor<8x4xf32>, %b: tensor<8x4xi32>) -> (tensor<2x4xf32>, tensor<8x4xf32>, tensor<8x4xi32>) {
  %a0 = tensor.extract_slice %a[0, 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<2x4xf32>
  %a1 = tensor.extract_slice %a[2, 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<2x4xf32>
  %a2 = tensor.extract_slice %a[4, 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<2x4xf32>
  %a3 = tensor.extract_slice %a[6, 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<2x4xf32>
  %b0 = tensor.extract_slice %b[0, 0] [2, 4] [1, 1] : tensor<8x4xi32> to tensor<2x4xi32>
  %b1 = tensor.extract_slice %b[2, 0] [2, 4] [1, 1] : tensor<8x4xi32> to tensor<2x4xi32>
  %b2 = tensor.extract_slice %b[4, 0] [2, 4] [1, 1] : tensor<8x4xi32> to tensor<2x4xi32>
  %b3 = tensor.extract_slice %b[6, 0] [2, 4] [1, 1] : tensor<8x4xi32> to tensor<2x4xi32>
  %m01 = arith.maximumf %a0, %a1 : tensor<2x4xf32>
  %m23 = arith.maximumf %a2, %a3 : tensor<2x4xf32>
  %mx = tensor.concat dim(0) %a0, %m01, %a2, %m23 : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<8x4xf32>
  %s02 = arith.addi %b0, %b2 : tensor<2x4xi32>
  %s13 = arith.addi %b1, %b3 : tensor<2x4xi32>
  %sm = tensor.concat dim(0) %s02, %s13, %b2, %b3 : (tensor<2x4xi32>, tensor<2x4xi32>, tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<8x4xi32>
  return %a2, %mx, %sm : tensor<2x4xf32>, tensor<8x4xf32>, tensor<8x4xi32>
}
