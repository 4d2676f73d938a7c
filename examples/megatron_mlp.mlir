// A two-layer MLP, Megatron style: the batch is split over "data", the
// first weight by columns and the second by rows over "model".
//
//   spmd-opt examples/megatron_mlp.mlir --spmd-mesh-config=examples/two_hosts.yaml \
//            --spmd-propagate
//
// replaces @mesh with the two-host mesh of the config file, checks every
// annotation against it, and gives every value a sharding.

spmd.mesh @mesh = <["data"=2, "model"=4]>

func.func @mlp(
    %x: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
    %w1: tensor<1024x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
    %w2: tensor<4096x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x4096xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<64x1024xf32>, tensor<1024x4096xf32>)
                     outs(%f1 : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  // mark_sharding on an intermediate value.
  %hs = spmd.sharding_constraint %h <@mesh, [{"data"}, {"model"}]> : tensor<64x4096xf32>
  %e2 = tensor.empty() : tensor<64x4096xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%hs : tensor<64x4096xf32>) outs(%e2 : tensor<64x4096xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x4096xf32>
  %e3 = tensor.empty() : tensor<64x1024xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<64x4096xf32>, tensor<4096x1024xf32>)
                     outs(%f3 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}
