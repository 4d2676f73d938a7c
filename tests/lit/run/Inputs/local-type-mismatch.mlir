module attributes {spmd.partitioned} {
  spmd.mesh @mesh = <["data"=4, "model"=4]>
  func.func @chain(%arg0: tensor<8x16xf32> {spmd.global_type = tensor<16x16xf32>, spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<16x4xf32> {spmd.global_type = tensor<16x16xf32>, spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}) -> (tensor<8x4xf32> {spmd.global_type = tensor<16x16xf32>, spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>}) {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x4xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x4xf32>) -> tensor<8x4xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16x4xf32>) outs(%1 : tensor<8x4xf32>) -> tensor<8x4xf32>
    %3 = math.tanh %2 : tensor<8x4xf32>
    %4 = tensor.empty() : tensor<8x4xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<8x4xf32>) -> tensor<8x4xf32>
    %6 = spmd.all_gather %3 on @mesh axes = ["model"] gather_dim = 1 {spmd.min_bytes = 384 : i64} : tensor<8x4xf32> -> tensor<8x16xf32>
    %7 = linalg.matmul ins(%6, %arg1 : tensor<8x16xf32>, tensor<16x4xf32>) outs(%5 : tensor<8x4xf32>) -> tensor<8x4xf32>
    %8 = math.tanh %7 : tensor<8x4xf32>
    return %8 : tensor<8x4xf32>
  }
}
