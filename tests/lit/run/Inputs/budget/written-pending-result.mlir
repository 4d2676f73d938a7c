// A matmul whose written result is pending over "data": only a split
// that makes it so is costed (the partitioner takes no other).
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @f(%x: tensor<32x128xf32>, %w: tensor<128x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) -> tensor<32x128xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x128xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<32x128xf32>) -> tensor<32x128xf32>
  %m = linalg.matmul {spmd.sharding = #spmd.sharding_per_value<[<@mesh, [{}, {"model"}], partial={"data"}>]>} ins(%x, %w : tensor<32x128xf32>, tensor<128x128xf32>) outs(%f : tensor<32x128xf32>) -> tensor<32x128xf32>
  %t = math.tanh %m : tensor<32x128xf32>
  return %t : tensor<32x128xf32>
}
