// A partitioned program on one device with a collective on a mesh of
// two: device 1 never runs. An error, not a hang (found by the mutants).
module attributes {spmd.partitioned} {
spmd.mesh @mesh = <["x"=1]>
spmd.mesh @two = <["y"=2]>
func.func @main(%x: tensor<4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>, spmd.global_type = tensor<4xi32>})
    -> (tensor<4xi32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>, spmd.global_type = tensor<4xi32>}) {
  %s = spmd.all_reduce %x on @two axes = ["y"] : tensor<4xi32>
  return %s : tensor<4xi32>
}
}
