// An argument returned as two results in other layouts: the copies the
// partitioner makes where the value starts are held from there.
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @f(%x: tensor<128x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}, %w: tensor<256x256xf32>) -> (tensor<128x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, tensor<128x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}, tensor<128x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {"data"}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %y = linalg.matmul ins(%x, %w : tensor<128x256xf32>, tensor<256x256xf32>) outs(%f : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %x, %x, %y : tensor<128x256xf32>, tensor<128x256xf32>, tensor<128x256xf32>
}
