// A partitioned program on 4 devices with a collective on a mesh of 2:
// devices 2 and 3 are not on it. An error, not a crash.
module attributes {spmd.partitioned} {
spmd.mesh @mesh = <["x"=4]>
spmd.mesh @two = <["y"=2]>
func.func @main(%x: tensor<4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>, spmd.global_type = tensor<16xi32>})
    -> (tensor<4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>, spmd.global_type = tensor<16xi32>}) {
  %s = spmd.all_reduce %x on @two axes = ["y"] : tensor<4xi32>
  return %s : tensor<4xi32>
}
}
