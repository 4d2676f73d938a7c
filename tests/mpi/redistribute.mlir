// spmd.redistribute across processes: layouts that trade axes between
// dimensions, on the data=2 x model=4 mesh of examples/two_hosts.yaml
// (data across the processes).
spmd.mesh @mesh = <["data"=2, "model"=4]>

// The transpose reshard.
func.func @transpose(%x: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>})
    -> (tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {"data"}]>}) {
  return %x : tensor<64x1024xf32>
}

// Uneven: 63 x 1001 in and out of the same trade.
func.func @uneven(%x: tensor<63x1001xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {"data"}]>})
    -> (tensor<63x1001xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", "model"}, {}]>}) {
  return %x : tensor<63x1001xf32>
}
