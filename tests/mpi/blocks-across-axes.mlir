// No device ids, no config: a 2x2x3 mesh over mpirun -np 3, 4 devices per
// process, so the blocks of processes do not follow the axes and groups
// cross processes unevenly.
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=3]>
func.func @f(%x: tensor<8x6x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}, {"c"}]>}) -> (tensor<8x6xf32>, tensor<8x6xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  %r = linalg.reduce ins(%x : tensor<8x6x6xf32>) outs(%f : tensor<8x6xf32>) dimensions = [1]
    (%a: f32, %o: f32) { %s = arith.addf %a, %o : f32  linalg.yield %s : f32 }
  %c = linalg.reduce ins(%x : tensor<8x6x6xf32>) outs(%f : tensor<8x6xf32>) dimensions = [2]
    (%a: f32, %o: f32) { %s = arith.addf %a, %o : f32  linalg.yield %s : f32 }
  return %r, %c : tensor<8x6xf32>, tensor<8x6xf32>
}
