// The entry @f runs on @two (2 devices); @g, never called, has a
// collective on @mesh (4 devices). Under mpirun -np 2 the program runs;
// it was refused because of @g's mesh.
spmd.mesh @mesh = <["x"=4]>
spmd.mesh @two = <["x"=2]>
func.func @f(%x: tensor<4xf32> {spmd.sharding = #spmd.sharding<@two, [{"x"}]>}) -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@two, [{"x"}]>}) {
  %r = arith.addf %x, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @g(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  return %x : tensor<8xf32>
}
