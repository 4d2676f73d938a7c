// Two 3072^3 matmuls: rank 0's check of the whole program on one device
// takes seconds, longer than the timeouts tests/mpi/faults.sh sets.
spmd.mesh @mesh = <["x"=4]>
func.func @main(%a: tensor<3072x3072xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                %b: tensor<3072x3072xf32>) -> tensor<3072x3072xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3072x3072xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3072x3072xf32>) -> tensor<3072x3072xf32>
  %c = linalg.matmul ins(%a, %b : tensor<3072x3072xf32>, tensor<3072x3072xf32>) outs(%f : tensor<3072x3072xf32>) -> tensor<3072x3072xf32>
  %t = math.tanh %c : tensor<3072x3072xf32>
  %d = linalg.matmul ins(%t, %b : tensor<3072x3072xf32>, tensor<3072x3072xf32>) outs(%f : tensor<3072x3072xf32>) -> tensor<3072x3072xf32>
  return %d : tensor<3072x3072xf32>
}
