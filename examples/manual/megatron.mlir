// The Megatron MLP of examples/megatron_mlp.mlir, written per device in a
// manual region: each device multiplies its rows of x by its columns of w1
// and its rows of w2, and sums the partial products over "model" with one
// all_reduce it writes itself. Same results, same bytes moved, as the
// automatic partitioning of the annotated program:
//
//   spmd-run examples/manual/megatron.mlir --seed=1 --outputs=manual
//   spmd-run examples/megatron_mlp.mlir --seed=1 --outputs=auto
//
// The comm report (--report) lists the one all_reduce in both.

spmd.mesh @mesh = <["data"=2, "model"=4]>

func.func @mlp(%x: tensor<64x1024xf32>, %w1: tensor<1024x4096xf32>,
               %w2: tensor<4096x1024xf32>) -> tensor<64x1024xf32> {
  %y = spmd.manual_computation(%x, %w1, %w2)
      in_shardings = [<@mesh, [{"data"}, {}]>, <@mesh, [{}, {"model"}]>,
                      <@mesh, [{"model"}, {}]>]
      out_shardings = [<@mesh, [{"data"}, {}]>]
      manual_axes = ["data", "model"]
      (%lx: tensor<32x1024xf32>, %lw1: tensor<1024x1024xf32>,
       %lw2: tensor<1024x1024xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<32x1024xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x1024xf32>) -> tensor<32x1024xf32>
    %h = linalg.matmul ins(%lx, %lw1 : tensor<32x1024xf32>, tensor<1024x1024xf32>)
                       outs(%f : tensor<32x1024xf32>) -> tensor<32x1024xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%h : tensor<32x1024xf32>) outs(%e : tensor<32x1024xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %zero : f32
      linalg.yield %m : f32
    } -> tensor<32x1024xf32>
    %partial = linalg.matmul ins(%r, %lw2 : tensor<32x1024xf32>, tensor<1024x1024xf32>)
                             outs(%f : tensor<32x1024xf32>) -> tensor<32x1024xf32>
    %sum = spmd.all_reduce %partial on @mesh axes = ["model"] : tensor<32x1024xf32>
    spmd.yield %sum : tensor<32x1024xf32>
  } : (tensor<64x1024xf32>, tensor<1024x4096xf32>, tensor<4096x1024xf32>)
    -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}
