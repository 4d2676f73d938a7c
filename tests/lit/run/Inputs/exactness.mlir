// Programs users write whose partitioned form was once wrong: one function
// each, run by exactness.test with --check.
spmd.mesh @mesh = <["x"=4]>
spmd.mesh @two = <["x"=2]>
spmd.mesh @grid = <["x"=2, "y"=2]>

// Softmax denominator over a dimension of 10 split in 4 (3, 3, 3, 1): the
// padded iterations must not add exp(pad).
func.func @denom(%x: tensor<4x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x10xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ex = math.exp %a : f32
    %s = arith.addf %ex, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// A min of negated values: negf(+inf) would win.
func.func @min_neg(%x: tensor<3x7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<3xf32> {
  %big = arith.constant 1.0e30 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%big : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x7xf32>) outs(%f : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    %m = arith.minimumf %n, %o : f32
    linalg.yield %m : f32
  } -> tensor<3xf32>
  return %z : tensor<3xf32>
}

// A squared-error loss: both inputs are read in the body.
func.func @mse(%a: tensor<9xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>},
               %b: tensor<9xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %z = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%a, %b : tensor<9xf32>, tensor<9xf32>) outs(%f : tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %d = arith.subf %x, %y : f32
    %s = arith.mulf %d, %d : f32
    %t = arith.addf %s, %o : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  return %z : tensor<f32>
}

// A sum whose body adds a constant per iteration (counts the elements).
func.func @count(%x: tensor<2x5xi32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<2xi32> {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %e = tensor.empty() : tensor<2xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<2xi32>) -> tensor<2xi32>
  %z = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x5xi32>) outs(%f : tensor<2xi32>) {
  ^bb0(%a: i32, %o: i32):
    %t = arith.addi %one, %o : i32
    linalg.yield %t : i32
  } -> tensor<2xi32>
  return %z : tensor<2xi32>
}

// A causal mask: keep a[i, j] where j <= i, rows split.
func.func @causal(%x: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@two, [{"x"}, {}]>}) -> tensor<8x8xf32> {
  %neg = arith.constant -1.0e30 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %le = arith.cmpi ule, %j, %i : index
    %s = arith.select %le, %a, %neg : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %z : tensor<8x8xf32>
}

// Positions as values (rotary embeddings), uneven: 6 rows over 4.
func.func @positions(%x: tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<6x4xf32> {
  %e = tensor.empty() : tensor<6x4xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.addi %i, %j : index
    %n = arith.index_cast %k : index to i32
    %p = arith.sitofp %n : i32 to f32
    %c = math.cos %p : f32
    %s = arith.mulf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<6x4xf32>
  return %z : tensor<6x4xf32>
}

// Argmax over a split, uneven dimension: two results, a select combiner.
func.func @argmax(%x: tensor<3x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<3xf32>, tensor<3xi32>) {
  %ninf = arith.constant -1.0e30 : f32
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<3xf32>
  %ei = tensor.empty() : tensor<3xi32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %fi = linalg.fill ins(%zero : i32) outs(%ei : tensor<3xi32>) -> tensor<3xi32>
  %z:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x10xf32>) outs(%f, %fi : tensor<3xf32>, tensor<3xi32>) {
  ^bb0(%a: f32, %m: f32, %k: i32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %a, %m : f32
    %nm = arith.select %gt, %a, %m : f32
    %nk = arith.select %gt, %ji, %k : i32
    linalg.yield %nm, %nk : f32, i32
  } -> (tensor<3xf32>, tensor<3xi32>)
  return %z#0, %z#1 : tensor<3xf32>, tensor<3xi32>
}

// A product over a split dimension (no partial product exists: gathered).
func.func @product(%x: tensor<2x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<2xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %z = linalg.reduce ins(%x : tensor<2x6xf32>) outs(%f : tensor<2xf32>) dimensions = [1]
    (%a: f32, %o: f32) {
      %p = arith.mulf %a, %o : f32
      linalg.yield %p : f32
    }
  return %z : tensor<2xf32>
}

// A reduce whose body transforms its input before adding.
func.func @reduce_abs(%x: tensor<7x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %z = linalg.reduce ins(%x : tensor<7x3xf32>) outs(%f : tensor<3xf32>) dimensions = [0]
    (%a: f32, %o: f32) {
      %b = math.absf %a : f32
      %c = arith.addf %b, %o : f32
      linalg.yield %c : f32
    }
  return %z : tensor<3xf32>
}

// A matmul over an uneven contraction (inputs masked, stays a matmul).
func.func @matmul_uneven(%a: tensor<4x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>},
                         %b: tensor<10x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %z = linalg.matmul ins(%a, %b : tensor<4x10xf32>, tensor<10x3xf32>) outs(%f : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %z : tensor<4x3xf32>
}

// A body that ignores the accumulator is no sum: the last iteration wins.
func.func @last(%x: tensor<2x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x6xf32>) outs(%f : tensor<2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %a : f32
    linalg.yield %t : f32
  } -> tensor<2xf32>
  return %z : tensor<2xf32>
}

// A replicated value returned as a pending sum: no communication.
func.func @to_partial(%x: tensor<4xf32>) -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@grid, [{}], partial={"y"}>}) {
  %e = math.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}

// And as a pending maximum, split over the other axis.
func.func @to_partial_max(%x: tensor<5xf32>) -> (tensor<5xf32> {spmd.sharding = #spmd.sharding<@grid, [{"x"}], partial<max>={"y"}>}) {
  %e = math.exp %x : tensor<5xf32>
  return %e : tensor<5xf32>
}

// Arguments that are pending reductions: the devices get shares whose
// reduction is the input.
func.func @partial_arg(%a: tensor<5x3xf32> {spmd.sharding = #spmd.sharding<@grid, [{"x"}, {}], partial={"y"}>}) -> (tensor<5x3xf32> {spmd.sharding = #spmd.sharding<@grid, [{}, {}]>}) {
  %e = math.exp %a : tensor<5x3xf32>
  return %e : tensor<5x3xf32>
}

func.func @partial_max_arg(%a: tensor<5xi32> {spmd.sharding = #spmd.sharding<@grid, [{}], partial<max>={"x", "y"}>}) -> tensor<5xi32> {
  return %a : tensor<5xi32>
}

// A pending sum in, a pending sum out: added to a replicated value.
func.func @partial_through(%a: tensor<4xf32> {spmd.sharding = #spmd.sharding<@grid, [{}], partial={"y"}>},
                           %b: tensor<4xf32>) -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@grid, [{}], partial={"y"}>}) {
  %s = arith.addf %a, %b : tensor<4xf32>
  return %s : tensor<4xf32>
}

// A pending minimum returned as a pending maximum: the minimum is taken
// first (the two were confused: kinds did not count in layout equality).
func.func @min_as_max(%x: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@grid, [{"x"}, {"y"}]>}) -> (tensor<f32> {spmd.sharding = #spmd.sharding<@grid, [], partial<max>={"x", "y"}>}) {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%x : tensor<8x8xf32>) outs(%f : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %o: f32) {
      %m = arith.minimumf %a, %o : f32
      linalg.yield %m : f32
    }
  return %r : tensor<f32>
}

// Pending over the same axes in another order is the same layout (the
// reshard between the two orders was refused).
func.func @pending_axis_order(%x: tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@grid, [{"x", "y"}, {}]>}) -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@grid, [{}], partial={"y", "x"}>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%x : tensor<6x4xf32>) outs(%f : tensor<4xf32>) dimensions = [0]
    (%a: f32, %o: f32) {
      %s = arith.addf %a, %o : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}

// A tensor listed element by element, used where its consumer is split:
// its local form was a from_elements of four elements typed as two
// (invalid IR). It is made whole and sliced.
func.func @from_elements(%a: f32, %b: f32, %x: tensor<4xf32> {spmd.sharding = #spmd.sharding<@two, [{"x"}]>}) -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@two, [{"x"}]>}) {
  %t = tensor.from_elements %a, %b, %a, %b : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%t, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// A finite difference out[i] = a[i + 1] - a[i] over an uneven split (11 in
// 4): the shifted read is a window; each device takes one element of its
// right neighbour and reads the window from its start.
func.func @finite_difference(%a: tensor<11xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %e = tensor.empty() : tensor<10xf32>
  %lo = tensor.extract_slice %a[0] [10] [1] : tensor<11xf32> to tensor<10xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i) -> (i + 1)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a, %lo : tensor<11xf32>, tensor<10xf32>) outs(%e : tensor<10xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<10xf32>
  return %d : tensor<10xf32>
}

// A shifted read and a reversed read (9 - i) of the same loop: the reversed
// operand was taken for block-aligned once the window made the loop
// splittable (invalid IR). A reversed read needs the whole dimension.
func.func @shift_and_reverse(%a: tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %b: tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<9xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %e = tensor.empty() : tensor<9xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 + 1)>, affine_map<(d0) -> (-d0 + 9)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<10xf32>, tensor<10xf32>) outs(%e : tensor<9xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %d = arith.subf %x, %y : f32
    linalg.yield %d : f32
  } -> tensor<9xf32>
  return %r : tensor<9xf32>
}

// Values made from scalars (a constant, a fill) used in two layouts: each
// use is remade or sliced in its own layout rather than one use's layout
// being forced on the other.
func.func @constant_two_layouts(%x: tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %y: tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) {
  %c = "tosa.const"() {values = dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [7.0, 8.0, 9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0, 17.0, 18.0], [19.0, 20.0, 21.0, 22.0, 23.0, 24.0]]> : tensor<4x6xf32>} : () -> tensor<4x6xf32>
  %one = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %a = linalg.add ins(%c, %x : tensor<4x6xf32>, tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %b = linalg.sub ins(%y, %c : tensor<4x6xf32>, tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %a2 = linalg.mul ins(%a, %f : tensor<4x6xf32>, tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %b2 = linalg.div ins(%b, %f : tensor<4x6xf32>, tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %a2, %b2 : tensor<4x6xf32>, tensor<4x6xf32>
}
