spmd.mesh @mesh = <["x"=2]>

#id = affine_map<(d0) -> (d0)>

// addi, subi, muli on i4 wrap at 4 bits (7 + 1 = -8), as tensor ops and
// inside a generic; 15 is the literal of -1.
func.func @wrapping_i4() -> (tensor<4xi4>, tensor<4xi4>, tensor<4xi4>, tensor<4xi4>) {
  %a0 = arith.constant dense<[7, -8, 5, -1]> : tensor<4xi4>
  %b0 = arith.constant dense<[1, -1, 3, 15]> : tensor<4xi4>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<4xi4>
  %b = spmd.sharding_constraint %b0 <@mesh, [{"x"}]> : tensor<4xi4>
  %add = arith.addi %a, %b : tensor<4xi4>
  %sub = arith.subi %a, %b : tensor<4xi4>
  %mul = arith.muli %a, %b : tensor<4xi4>
  %e = tensor.empty() : tensor<4xi4>
  %fused = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xi4>, tensor<4xi4>) outs(%e : tensor<4xi4>) {
    ^bb0(%x: i4, %y: i4, %o: i4):
      %s = arith.addi %x, %y : i4
      %p = arith.muli %s, %x : i4
      linalg.yield %p : i4
  } -> tensor<4xi4>
  return %add, %sub, %mul, %fused : tensor<4xi4>, tensor<4xi4>, tensor<4xi4>, tensor<4xi4>
}

// Signedness is in the ops: the same i4 bits read signed and unsigned.
func.func @signedness_i4() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>,
                               tensor<4xi4>, tensor<4xi4>, tensor<4xi4>, tensor<4xi4>,
                               tensor<4xi1>, tensor<4xi1>,
                               tensor<4xi4>, tensor<4xi4>, tensor<4xi4>,
                               tensor<4xi4>, tensor<4xi4>, tensor<4xi4>) {
  %a0 = arith.constant dense<[-1, -8, 7, 1]> : tensor<4xi4>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<4xi4>
  %one = arith.constant dense<1> : tensor<4xi4>
  %two = arith.constant dense<2> : tensor<4xi4>
  %four = arith.constant dense<4> : tensor<4xi4>
  %seven = arith.constant dense<7> : tensor<4xi4>
  %extui = arith.extui %a : tensor<4xi4> to tensor<4xi32>
  %extsi = arith.extsi %a : tensor<4xi4> to tensor<4xi32>
  %uitofp = arith.uitofp %a : tensor<4xi4> to tensor<4xf32>
  %sitofp = arith.sitofp %a : tensor<4xi4> to tensor<4xf32>
  %divui = arith.divui %a, %two : tensor<4xi4>
  %remui = arith.remui %a, %four : tensor<4xi4>
  %divsi = arith.divsi %a, %two : tensor<4xi4>
  %remsi = arith.remsi %a, %four : tensor<4xi4>
  %ult = arith.cmpi ult, %a, %two : tensor<4xi4>
  %slt = arith.cmpi slt, %a, %two : tensor<4xi4>
  %shrui = arith.shrui %a, %one : tensor<4xi4>
  %shrsi = arith.shrsi %a, %one : tensor<4xi4>
  %shli = arith.shli %a, %one : tensor<4xi4>
  %maxui = arith.maxui %a, %seven : tensor<4xi4>
  %minui = arith.minui %a, %seven : tensor<4xi4>
  %maxsi = arith.maxsi %a, %two : tensor<4xi4>
  return %extui, %extsi, %uitofp, %sitofp, %divui, %remui, %divsi, %remsi, %ult, %slt,
         %shrui, %shrsi, %shli, %maxui, %minui, %maxsi
    : tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>,
      tensor<4xi4>, tensor<4xi4>, tensor<4xi4>, tensor<4xi4>, tensor<4xi1>, tensor<4xi1>,
      tensor<4xi4>, tensor<4xi4>, tensor<4xi4>, tensor<4xi4>, tensor<4xi4>, tensor<4xi4>
}

// trunci into narrow widths keeps the low bits, read signed.
func.func @truncation() -> (tensor<4xi4>, tensor<4xi3>, tensor<4xi2>, tensor<4xi12>) {
  %a0 = arith.constant dense<[13, 5, -9, 100000]> : tensor<4xi32>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<4xi32>
  %t4 = arith.trunci %a : tensor<4xi32> to tensor<4xi4>
  %t3 = arith.trunci %a : tensor<4xi32> to tensor<4xi3>
  %t2 = arith.trunci %a : tensor<4xi32> to tensor<4xi2>
  %t12 = arith.trunci %a : tensor<4xi32> to tensor<4xi12>
  return %t4, %t3, %t2, %t12 : tensor<4xi4>, tensor<4xi3>, tensor<4xi2>, tensor<4xi12>
}

// Odd widths: the largest value plus one is the smallest, the smallest
// minus one the largest; extui reads -1 as 2^N - 1 and the smallest as 2^(N-1).
func.func @odd_i2() -> (tensor<4xi2>, tensor<4xi64>, tensor<4xi1>) {
  %a0 = arith.constant dense<[1, -2, -1, 0]> : tensor<4xi2>
  %b = arith.constant dense<[1, -1, 2, 3]> : tensor<4xi2>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<4xi2>
  %sum = arith.addi %a, %b : tensor<4xi2>
  %wide = arith.extui %a : tensor<4xi2> to tensor<4xi64>
  %ugt = arith.cmpi ugt, %a, %b : tensor<4xi2>
  return %sum, %wide, %ugt : tensor<4xi2>, tensor<4xi64>, tensor<4xi1>
}
func.func @odd_i3() -> (tensor<4xi3>, tensor<4xi64>, tensor<4xi1>) {
  %a0 = arith.constant dense<[3, -4, -1, 0]> : tensor<4xi3>
  %b = arith.constant dense<[1, -1, 2, 3]> : tensor<4xi3>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<4xi3>
  %sum = arith.addi %a, %b : tensor<4xi3>
  %wide = arith.extui %a : tensor<4xi3> to tensor<4xi64>
  %ugt = arith.cmpi ugt, %a, %b : tensor<4xi3>
  return %sum, %wide, %ugt : tensor<4xi3>, tensor<4xi64>, tensor<4xi1>
}
func.func @odd_i5() -> (tensor<4xi5>, tensor<4xi64>, tensor<4xi1>) {
  %a0 = arith.constant dense<[15, -16, -1, 0]> : tensor<4xi5>
  %b = arith.constant dense<[1, -1, 2, 3]> : tensor<4xi5>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<4xi5>
  %sum = arith.addi %a, %b : tensor<4xi5>
  %wide = arith.extui %a : tensor<4xi5> to tensor<4xi64>
  %ugt = arith.cmpi ugt, %a, %b : tensor<4xi5>
  return %sum, %wide, %ugt : tensor<4xi5>, tensor<4xi64>, tensor<4xi1>
}
func.func @odd_i7() -> (tensor<4xi7>, tensor<4xi64>, tensor<4xi1>) {
  %a0 = arith.constant dense<[63, -64, -1, 0]> : tensor<4xi7>
  %b = arith.constant dense<[1, -1, 2, 3]> : tensor<4xi7>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<4xi7>
  %sum = arith.addi %a, %b : tensor<4xi7>
  %wide = arith.extui %a : tensor<4xi7> to tensor<4xi64>
  %ugt = arith.cmpi ugt, %a, %b : tensor<4xi7>
  return %sum, %wide, %ugt : tensor<4xi7>, tensor<4xi64>, tensor<4xi1>
}
func.func @odd_i12() -> (tensor<4xi12>, tensor<4xi64>, tensor<4xi1>) {
  %a0 = arith.constant dense<[2047, -2048, -1, 0]> : tensor<4xi12>
  %b = arith.constant dense<[1, -1, 2, 3]> : tensor<4xi12>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<4xi12>
  %sum = arith.addi %a, %b : tensor<4xi12>
  %wide = arith.extui %a : tensor<4xi12> to tensor<4xi64>
  %ugt = arith.cmpi ugt, %a, %b : tensor<4xi12>
  return %sum, %wide, %ugt : tensor<4xi12>, tensor<4xi64>, tensor<4xi1>
}
func.func @odd_i24() -> (tensor<4xi24>, tensor<4xi64>, tensor<4xi1>) {
  %a0 = arith.constant dense<[8388607, -8388608, -1, 0]> : tensor<4xi24>
  %b = arith.constant dense<[1, -1, 2, 3]> : tensor<4xi24>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<4xi24>
  %sum = arith.addi %a, %b : tensor<4xi24>
  %wide = arith.extui %a : tensor<4xi24> to tensor<4xi64>
  %ugt = arith.cmpi ugt, %a, %b : tensor<4xi24>
  return %sum, %wide, %ugt : tensor<4xi24>, tensor<4xi64>, tensor<4xi1>
}
func.func @odd_i33() -> (tensor<4xi33>, tensor<4xi64>, tensor<4xi1>) {
  %a0 = arith.constant dense<[4294967295, -4294967296, -1, 0]> : tensor<4xi33>
  %b = arith.constant dense<[1, -1, 2, 3]> : tensor<4xi33>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<4xi33>
  %sum = arith.addi %a, %b : tensor<4xi33>
  %wide = arith.extui %a : tensor<4xi33> to tensor<4xi64>
  %ugt = arith.cmpi ugt, %a, %b : tensor<4xi33>
  return %sum, %wide, %ugt : tensor<4xi33>, tensor<4xi64>, tensor<4xi1>
}
func.func @odd_i63() -> (tensor<4xi63>, tensor<4xi64>, tensor<4xi1>) {
  %a0 = arith.constant dense<[4611686018427387903, -4611686018427387904, -1, 0]> : tensor<4xi63>
  %b = arith.constant dense<[1, -1, 2, 3]> : tensor<4xi63>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<4xi63>
  %sum = arith.addi %a, %b : tensor<4xi63>
  %wide = arith.extui %a : tensor<4xi63> to tensor<4xi64>
  %ugt = arith.cmpi ugt, %a, %b : tensor<4xi63>
  return %sum, %wide, %ugt : tensor<4xi63>, tensor<4xi64>, tensor<4xi1>
}

// Sums over a dimension split across the devices: each device's partial
// sum, then an all-reduce; both wrap at the width. 5 rows over 2 devices:
// the padded row must add nothing.
func.func @sum_across_devices() -> (tensor<3xi4>, tensor<2xi33>) {
  %a0 = arith.constant dense<[[7, -8, 1], [7, -8, 2], [7, -8, 3], [7, -8, -1], [7, -8, 4]]> : tensor<5x3xi4>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}, {}]> : tensor<5x3xi4>
  %zero = arith.constant 0 : i4
  %e = tensor.empty() : tensor<3xi4>
  %init = linalg.fill ins(%zero : i4) outs(%e : tensor<3xi4>) -> tensor<3xi4>
  %sum = linalg.reduce ins(%a : tensor<5x3xi4>) outs(%init : tensor<3xi4>) dimensions = [0]
    (%x: i4, %acc: i4) {
      %s = arith.addi %x, %acc : i4
      linalg.yield %s : i4
    }
  %b0 = arith.constant dense<[[4294967295, -4294967296], [1, -1]]> : tensor<2x2xi33>
  %b = spmd.sharding_constraint %b0 <@mesh, [{"x"}, {}]> : tensor<2x2xi33>
  %zero33 = arith.constant 0 : i33
  %e33 = tensor.empty() : tensor<2xi33>
  %init33 = linalg.fill ins(%zero33 : i33) outs(%e33 : tensor<2xi33>) -> tensor<2xi33>
  %sum33 = linalg.reduce ins(%b : tensor<2x2xi33>) outs(%init33 : tensor<2xi33>) dimensions = [0]
    (%x: i33, %acc: i33) {
      %s = arith.addi %x, %acc : i33
      linalg.yield %s : i33
    }
  return %sum, %sum33 : tensor<3xi4>, tensor<2xi33>
}

// Maxima and minima across devices, padded: the padding holds the i4
// identities (-8 for maxsi, 7 for minsi), never a value of its own. maxui
// is no signed maximum: its reduction is not split.
func.func @extrema_across_devices() -> (tensor<2xi4>, tensor<2xi4>, tensor<2xi4>) {
  %a0 = arith.constant dense<[[-8, -3], [-8, -5], [-8, 6], [-8, -1], [-8, 2]]> : tensor<5x2xi4>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}, {}]> : tensor<5x2xi4>
  %lowest = arith.constant -8 : i4
  %highest = arith.constant 7 : i4
  %zero = arith.constant 0 : i4
  %e = tensor.empty() : tensor<2xi4>
  %initmax = linalg.fill ins(%lowest : i4) outs(%e : tensor<2xi4>) -> tensor<2xi4>
  %max = linalg.reduce ins(%a : tensor<5x2xi4>) outs(%initmax : tensor<2xi4>) dimensions = [0]
    (%x: i4, %acc: i4) {
      %m = arith.maxsi %x, %acc : i4
      linalg.yield %m : i4
    }
  %initmin = linalg.fill ins(%highest : i4) outs(%e : tensor<2xi4>) -> tensor<2xi4>
  %min = linalg.reduce ins(%a : tensor<5x2xi4>) outs(%initmin : tensor<2xi4>) dimensions = [0]
    (%x: i4, %acc: i4) {
      %m = arith.minsi %x, %acc : i4
      linalg.yield %m : i4
    }
  %initu = linalg.fill ins(%zero : i4) outs(%e : tensor<2xi4>) -> tensor<2xi4>
  %umax = linalg.reduce ins(%a : tensor<5x2xi4>) outs(%initu : tensor<2xi4>) dimensions = [0]
    (%x: i4, %acc: i4) {
      %m = arith.maxui %x, %acc : i4
      linalg.yield %m : i4
    }
  return %max, %min, %umax : tensor<2xi4>, tensor<2xi4>, tensor<2xi4>
}

// i4 arguments and results: .npy files hold them as int8.
func.func @increment(%a: tensor<6xi4> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>})
    -> tensor<6xi4> {
  %one = arith.constant dense<1> : tensor<6xi4>
  %r = arith.addi %a, %one : tensor<6xi4>
  return %r : tensor<6xi4>
}
