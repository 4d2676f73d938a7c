// FSDP: the batch and the weights are split over one "fsdp" axis of eight
// devices that crosses the processes (fsdp_2x4.yaml: two processes of
// four). The forward pass gathers the weight; the weight gradient
// x^T dy is reduced and scattered back to its shards.
spmd.mesh @mesh = <["fsdp"=8]>

func.func @step(
    %x: tensor<64x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"fsdp"}, {}]>},
    %w: tensor<256x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"fsdp"}, {}]>},
    %dy: tensor<64x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"fsdp"}, {}]>})
    -> (tensor<64x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"fsdp"}, {}]>},
        tensor<256x128xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"fsdp"}, {}]>}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x256xf32>, tensor<256x128xf32>)
                     outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %eg = tensor.empty() : tensor<256x128xf32>
  %fg = linalg.fill ins(%zero : f32) outs(%eg : tensor<256x128xf32>) -> tensor<256x128xf32>
  %dw = linalg.generic {indexing_maps = [affine_map<(k, n, b) -> (b, k)>,
                                         affine_map<(k, n, b) -> (b, n)>,
                                         affine_map<(k, n, b) -> (k, n)>],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %dy : tensor<64x256xf32>, tensor<64x128xf32>) outs(%fg : tensor<256x128xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<256x128xf32>
  return %y, %dw : tensor<64x128xf32>, tensor<256x128xf32>
}
