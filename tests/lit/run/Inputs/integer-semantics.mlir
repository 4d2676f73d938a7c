spmd.mesh @mesh = <["x"=2]>

// i1 read signed is 0 or -1: extsi, sitofp, signed comparisons and
// maxsi see true as -1.
func.func @signed_i1() -> (tensor<2xi8>, tensor<2xf32>, tensor<2xi8>, tensor<2xi1>, tensor<2xi1>) {
  %c0 = arith.constant dense<[true, false]> : tensor<2xi1>
  %c = spmd.sharding_constraint %c0 <@mesh, [{"x"}]> : tensor<2xi1>
  %d0 = arith.constant dense<[false, true]> : tensor<2xi1>
  %d = spmd.sharding_constraint %d0 <@mesh, [{"x"}]> : tensor<2xi1>
  %extsi = arith.extsi %c : tensor<2xi1> to tensor<2xi8>
  %sitofp = arith.sitofp %c : tensor<2xi1> to tensor<2xf32>
  %extui = arith.extui %c : tensor<2xi1> to tensor<2xi8>
  %slt = arith.cmpi slt, %c, %d : tensor<2xi1>
  %maxsi = arith.maxsi %c, %d : tensor<2xi1>
  return %extsi, %sitofp, %extui, %slt, %maxsi : tensor<2xi8>, tensor<2xf32>, tensor<2xi8>, tensor<2xi1>, tensor<2xi1>
}

// The one signed quotient that overflows: the smallest i64 over -1 wraps
// (an x86 division traps on it), its remainder is 0.
func.func @overflowing_division() -> (tensor<2xi64>, tensor<2xi64>) {
  %a0 = arith.constant dense<[-9223372036854775808, 7]> : tensor<2xi64>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<2xi64>
  %m = arith.constant dense<-1> : tensor<2xi64>
  %q = arith.divsi %a, %m : tensor<2xi64>
  %r = arith.remsi %a, %m : tensor<2xi64>
  return %q, %r : tensor<2xi64>, tensor<2xi64>
}

// fptoui reads the result's bits unsigned: 1e19 and 2^63 fit an unsigned
// i64 (they were saturated to the largest signed one), 255 an i8, 3e9 an
// i32.
func.func @unsigned_conversions() -> (tensor<2xi64>, tensor<2xi8>, tensor<2xi32>, tensor<2xf64>) {
  %a0 = arith.constant dense<[1.0e19, 9223372036854775808.0]> : tensor<2xf64>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}]> : tensor<2xf64>
  %u64 = arith.fptoui %a : tensor<2xf64> to tensor<2xi64>
  %b0 = arith.constant dense<[255.0, 128.0]> : tensor<2xf32>
  %b = spmd.sharding_constraint %b0 <@mesh, [{"x"}]> : tensor<2xf32>
  %u8 = arith.fptoui %b : tensor<2xf32> to tensor<2xi8>
  %c0 = arith.constant dense<[3.0e9, 4.0e9]> : tensor<2xf32>
  %c = spmd.sharding_constraint %c0 <@mesh, [{"x"}]> : tensor<2xf32>
  %u32 = arith.fptoui %c : tensor<2xf32> to tensor<2xi32>
  %back = arith.uitofp %u64 : tensor<2xi64> to tensor<2xf64>
  return %u64, %u8, %u32, %back : tensor<2xi64>, tensor<2xi8>, tensor<2xi32>, tensor<2xf64>
}

// maxsi and minsi of i1 across devices: true is -1, so the maximum of
// [true, false, true] is false and the minimum true (the all-reduce
// compared 0 and 1).
func.func @extrema_i1_across_devices() -> (tensor<1xi1>, tensor<1xi1>) {
  %a0 = arith.constant dense<[[true], [false], [true]]> : tensor<3x1xi1>
  %a = spmd.sharding_constraint %a0 <@mesh, [{"x"}, {}]> : tensor<3x1xi1>
  %t = arith.constant true
  %f = arith.constant false
  %e = tensor.empty() : tensor<1xi1>
  %i = linalg.fill ins(%t : i1) outs(%e : tensor<1xi1>) -> tensor<1xi1>
  %m = linalg.reduce ins(%a : tensor<3x1xi1>) outs(%i : tensor<1xi1>) dimensions = [0]
    (%x: i1, %acc: i1) {
      %r = arith.maxsi %x, %acc : i1
      linalg.yield %r : i1
    }
  %i2 = linalg.fill ins(%f : i1) outs(%e : tensor<1xi1>) -> tensor<1xi1>
  %n = linalg.reduce ins(%a : tensor<3x1xi1>) outs(%i2 : tensor<1xi1>) dimensions = [0]
    (%x: i1, %acc: i1) {
      %r = arith.minsi %x, %acc : i1
      linalg.yield %r : i1
    }
  return %m, %n : tensor<1xi1>, tensor<1xi1>
}
