spmd.mesh @mesh = <["x"=2]>

// Integer sums wrap (arith.addi is two's complement): each device's rows
// sum to the largest i64, and their all-reduce wraps to -2.
func.func @sum_across_devices() -> tensor<4xi64> {
  %big = arith.constant dense<9223372036854775807> : tensor<2x4xi64>
  %split = spmd.sharding_constraint %big <@mesh, [{"x"}, {}]> : tensor<2x4xi64>
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<4xi64>
  %init = linalg.fill ins(%zero : i64) outs(%e : tensor<4xi64>) -> tensor<4xi64>
  %sum = linalg.reduce ins(%split : tensor<2x4xi64>) outs(%init : tensor<4xi64>) dimensions = [0]
    (%a: i64, %b: i64) {
      %s = arith.addi %a, %b : i64
      linalg.yield %s : i64
    }
  return %sum : tensor<4xi64>
}
