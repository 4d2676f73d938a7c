// Unannotated input of partition/min-bytes.mlir and comm-report/min-bytes.mlir
// (which check the result) for pipeline/partition-cases.test.

spmd.mesh @mesh = <["data"=2, "model"=4]>

func.func @transpose(%x: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>})
    -> (tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {"data"}]>}) {
  return %x : tensor<64x1024xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @gather(%x: tensor<64x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<64x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  return %x : tensor<64x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>
func.func @reduce(%a: tensor<16x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                  %b: tensor<64x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<16x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x16xf32>) outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

spmd.mesh @mesh = <["x"=3]>
func.func @uneven(%x: tensor<10x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<10x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) {
  return %x : tensor<10x4xf32>
}
