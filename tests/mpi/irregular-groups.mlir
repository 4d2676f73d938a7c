// Permuted device ids, no config, mpirun -np 2: process 0 runs devices
// 0-3. Over "a" its crossing devices are not those over "b", so devices
// whose group stays inside the process reach the next collective early;
// the processes must still run their MPI exchanges in one order (this
// hung: each process led the two collectives in a different order).
spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2], device_ids=[0, 1, 2, 4, 5, 3, 6, 7]>
func.func @f(%x: tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"a"}, {"b"}]>}) -> (tensor<16xf32>, tensor<16xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %r = linalg.reduce ins(%x : tensor<16x16xf32>) outs(%f : tensor<16xf32>) dimensions = [0]
    (%a: f32, %o: f32) { %s = arith.addf %a, %o : f32  linalg.yield %s : f32 }
  %c = linalg.reduce ins(%x : tensor<16x16xf32>) outs(%f : tensor<16xf32>) dimensions = [1]
    (%a: f32, %o: f32) { %s = arith.addf %a, %o : f32  linalg.yield %s : f32 }
  return %r, %c : tensor<16xf32>, tensor<16xf32>
}
