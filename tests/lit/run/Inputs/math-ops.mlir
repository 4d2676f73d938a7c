// The math and integer ops torch-mlir lowers torch's functions to
// (torch.tan, asin, sinh, round, trunc, //, ...), in kernel bodies over a
// dimension split over 2 devices (math-ops.test).
spmd.mesh @mesh = <["x"=2]>

#id = affine_map<(i) -> (i)>

// c in (-1, 1): one result per unary op, in the order of check_math_ops.py.
func.func @unary()
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<8xf32>) {
  %values = arith.constant dense<[-0.9, -0.5, -0.1, 0.0, 0.2, 0.4, 0.6, 0.8]> : tensor<8xf32>
  %c = spmd.sharding_constraint %values <@mesh, [{"x"}]> : tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %r:13 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id, #id],
                          iterator_types = ["parallel"]}
      ins(%c : tensor<8xf32>)
      outs(%e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e, %e
           : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
             tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
             tensor<8xf32>) {
  ^bb0(%x: f32, %o0: f32, %o1: f32, %o2: f32, %o3: f32, %o4: f32, %o5: f32, %o6: f32, %o7: f32,
       %o8: f32, %o9: f32, %o10: f32, %o11: f32, %o12: f32):
    %tan = math.tan %x : f32
    %atan = math.atan %x : f32
    %asin = math.asin %x : f32
    %acos = math.acos %x : f32
    %sinh = math.sinh %x : f32
    %cosh = math.cosh %x : f32
    %asinh = math.asinh %x : f32
    %atanh = math.atanh %x : f32
    %expm1 = math.expm1 %x : f32
    %cbrt = math.cbrt %x : f32
    %erfc = math.erfc %x : f32
    %xp1 = arith.addf %x, %one : f32
    %log10 = math.log10 %xp1 : f32
    %xp2 = arith.addf %x, %two : f32
    %acosh = math.acosh %xp2 : f32
    linalg.yield %tan, %atan, %asin, %acos, %sinh, %cosh, %asinh, %atanh, %expm1, %cbrt, %erfc,
                 %log10, %acosh : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<8xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9, %r#10, %r#11, %r#12
      : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
        tensor<8xf32>
}

// Rounding and signs at the cases that tell them apart: halves, -0.4,
// negative operands.
func.func @rounding() -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %a = arith.constant dense<[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.4, 2.7]> : tensor<8xf32>
  %b = arith.constant dense<[1.0, -1.0, 2.0, -3.0, 0.5, -4.0, -0.2, 0.0]> : tensor<8xf32>
  %as = spmd.sharding_constraint %a <@mesh, [{"x"}]> : tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %r:4 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%as, %b : tensor<8xf32>, tensor<8xf32>) outs(%e, %e, %e, %e : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o0: f32, %o1: f32, %o2: f32, %o3: f32):
    %re = math.roundeven %x : f32
    %tr = math.trunc %x : f32
    %cs = math.copysign %x, %y : f32
    %at = math.atan2 %x, %y : f32
    linalg.yield %re, %tr, %cs, %at : f32, f32, f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// Integer divisions rounded down and up, every sign combination, and
// the one that overflows (-2^31 / -1 wraps).
func.func @divisions() -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) {
  %a = arith.constant dense<[7, -7, 7, -7, 6, -6, -2147483648, 0]> : tensor<8xi32>
  %b = arith.constant dense<[2, 2, -2, -2, 3, 3, -1, 5]> : tensor<8xi32>
  %as = spmd.sharding_constraint %a <@mesh, [{"x"}]> : tensor<8xi32>
  %e = tensor.empty() : tensor<8xi32>
  %r:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%as, %b : tensor<8xi32>, tensor<8xi32>) outs(%e, %e, %e : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>) {
  ^bb0(%x: i32, %y: i32, %o0: i32, %o1: i32, %o2: i32):
    %f = arith.floordivsi %x, %y : i32
    %c = arith.ceildivsi %x, %y : i32
    %u = arith.ceildivui %x, %y : i32
    linalg.yield %f, %c, %u : i32, i32, i32
  } -> (tensor<8xi32>, tensor<8xi32>, tensor<8xi32>)
  return %r#0, %r#1, %r#2 : tensor<8xi32>, tensor<8xi32>, tensor<8xi32>
}
