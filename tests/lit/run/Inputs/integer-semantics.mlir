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
