// Two residual layers whose matmuls read one zero fill: the fill's buffer
// is held between them in the local type the plan gives it, not in every
// local type a plan could give it (auto-shard-budget-remade.test).
spmd.mesh @mesh = <["x"=2, "y"=4]>
func.func @f(%x: tensor<16x32xf32>, %w0: tensor<32x32xf32>, %w1: tensor<32x32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %m0 = linalg.matmul ins(%x, %w0 : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %t0 = math.tanh %m0 : tensor<16x32xf32>
  %r0 = arith.addf %t0, %x : tensor<16x32xf32>
  %m1 = linalg.matmul ins(%r0, %w1 : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %t1 = math.tanh %m1 : tensor<16x32xf32>
  %r1 = arith.addf %t1, %r0 : tensor<16x32xf32>
  return %r1 : tensor<16x32xf32>
}
