spmd.mesh @mesh = <["x"=2, "y"=2]>
// Integer matmuls of i4 operands: accumulated in i4 (wrapping), and in i32
// read signed (the default cast) and unsigned (cast_unsigned); the
// contraction is split over "x", so partial sums are all-reduced.
func.func @matmul_i4() -> (tensor<2x3xi4>, tensor<2x3xi32>, tensor<2x3xi32>) {
  %a0 = arith.constant dense<[[7, -8, 3, -1, 5], [-2, 6, -7, 4, 1]]> : tensor<2x5xi4>
  %b0 = arith.constant dense<[[1, -1, 7], [-8, 2, 3], [5, -5, 0], [6, 7, -8], [-3, 4, 2]]> : tensor<5x3xi4>
  %a = spmd.sharding_constraint %a0 <@mesh, [{}, {"x"}]> : tensor<2x5xi4>
  %b = spmd.sharding_constraint %b0 <@mesh, [{"x"}, {"y"}]> : tensor<5x3xi4>
  %z4 = arith.constant 0 : i4
  %e4 = tensor.empty() : tensor<2x3xi4>
  %i4 = linalg.fill ins(%z4 : i4) outs(%e4 : tensor<2x3xi4>) -> tensor<2x3xi4>
  %m4 = linalg.matmul ins(%a, %b : tensor<2x5xi4>, tensor<5x3xi4>) outs(%i4 : tensor<2x3xi4>) -> tensor<2x3xi4>
  %z32 = arith.constant 0 : i32
  %e32 = tensor.empty() : tensor<2x3xi32>
  %i32 = linalg.fill ins(%z32 : i32) outs(%e32 : tensor<2x3xi32>) -> tensor<2x3xi32>
  %ms = linalg.matmul ins(%a, %b : tensor<2x5xi4>, tensor<5x3xi4>) outs(%i32 : tensor<2x3xi32>) -> tensor<2x3xi32>
  %mu = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<2x5xi4>, tensor<5x3xi4>) outs(%i32 : tensor<2x3xi32>) -> tensor<2x3xi32>
  return %m4, %ms, %mu : tensor<2x3xi4>, tensor<2x3xi32>, tensor<2x3xi32>
}
// Pads with an i4 literal of 15 (-1), extracted scalars, from_elements,
// absi (|-8| wraps to -8), select, index_cast and index_castui.
func.func @tensor_ops() -> (tensor<7xi4>, tensor<3xi12>, tensor<4xi4>, tensor<2xindex>) {
  %a0 = arith.constant dense<[7, -8, 3, -1, 5]> : tensor<5xi4>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<5xi4>
  %pv = arith.constant 15 : i4
  %p = tensor.pad %a low[1] high[1] { ^bb0(%i: index): tensor.yield %pv : i4 } : tensor<5xi4> to tensor<7xi4>
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = tensor.extract %a[%c1] : tensor<5xi4>
  %y = tensor.extract %a[%c3] : tensor<5xi4>
  %s = arith.addi %x, %y : i4
  %xe = arith.extsi %x : i4 to i12
  %ye = arith.extui %y : i4 to i12
  %se = arith.extsi %s : i4 to i12
  %fe = tensor.from_elements %xe, %ye, %se : tensor<3xi12>
  %sel0 = arith.constant dense<[true, false, true, false]> : tensor<4xi1>
  %sel = spmd.sharding_constraint %sel0 <@mesh, [{"y"}]> : tensor<4xi1>
  %l = arith.constant dense<[-8, 7, 1, 2]> : tensor<4xi4>
  %r = arith.constant dense<[3, 3, -3, -3]> : tensor<4xi4>
  %abs = math.absi %l : tensor<4xi4>
  %chosen = arith.select %sel, %abs, %r : tensor<4xi1>, tensor<4xi4>
  %ic = arith.index_cast %l : tensor<4xi4> to tensor<4xindex>
  %icu = arith.index_castui %l : tensor<4xi4> to tensor<4xindex>
  %e2 = tensor.extract_slice %ic[0] [2] [1] : tensor<4xindex> to tensor<2xindex>
  %e3 = tensor.extract_slice %icu[0] [2] [1] : tensor<4xindex> to tensor<2xindex>
  %sum = arith.addi %e2, %e3 : tensor<2xindex>
  return %p, %fe, %chosen, %sum : tensor<7xi4>, tensor<3xi12>, tensor<4xi4>, tensor<2xindex>
}
// A loop carrying an i4 tensor (acc * a + a, five times), then a generic
// mixing widths: trunci(extui(v) >> 2) xor v.
func.func @loop_i4() -> (tensor<4xi4>, tensor<4xi4>) {
  %a0 = arith.constant dense<[1, 2, 3, -4]> : tensor<4xi4>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<4xi4>
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %a) -> tensor<4xi4> {
    %n = arith.muli %acc, %a : tensor<4xi4>
    %m = arith.addi %n, %a : tensor<4xi4>
    scf.yield %m : tensor<4xi4>
  }
  %e = tensor.empty() : tensor<4xi4>
  %t = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%r : tensor<4xi4>) outs(%e : tensor<4xi4>) {
  ^bb0(%v: i4, %o: i4):
    %w = arith.extui %v : i4 to i8
    %sh = arith.constant 2 : i8
    %q = arith.shrui %w, %sh : i8
    %b = arith.trunci %q : i8 to i4
    %c = arith.xori %b, %v : i4
    linalg.yield %c : i4
  } -> tensor<4xi4>
  return %r, %t : tensor<4xi4>, tensor<4xi4>
}
// An i4 constant whose bytes hold 15 for -1 (0x0F 0x08 0xFF 0x07: a byte
// per element, the low 4 bits the value's): read as -1, -8, -1, 7.
func.func @resource_i4() -> (tensor<4xi4>, tensor<4xf32>) {
  %a0 = arith.constant dense_resource<narrow> : tensor<4xi4>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<4xi4>
  %f = arith.sitofp %a : tensor<4xi4> to tensor<4xf32>
  return %a, %f : tensor<4xi4>, tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      narrow: "0x010000000F08FF07"
    }
  }
#-}
