//--- forgot_all_reduce.mlir
// Each device's partial product, declared replicated over "model": the
// all_reduce that would make it so is missing. Device 0's copy is what the
// reference computes too, so only the other copies show it.
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %y = spmd.manual_computation(%x, %w)
      in_shardings = [<@mesh, [{"data"}, {"model"}]>, <@mesh, [{"model"}, {}]>]
      out_shardings = [<@mesh, [{"data"}, {}]>]
      manual_axes = ["data", "model"]
      (%lx: tensor<4x8xf32>, %lw: tensor<8x8xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %partial = linalg.matmul ins(%lx, %lw : tensor<4x8xf32>, tensor<8x8xf32>)
                             outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
    spmd.yield %partial : tensor<4x8xf32>
  } : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

//--- with_all_reduce.mlir
// The same with the all_reduce: every copy holds the sum.
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %y = spmd.manual_computation(%x, %w)
      in_shardings = [<@mesh, [{"data"}, {"model"}]>, <@mesh, [{"model"}, {}]>]
      out_shardings = [<@mesh, [{"data"}, {}]>]
      manual_axes = ["data", "model"]
      (%lx: tensor<4x8xf32>, %lw: tensor<8x8xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %partial = linalg.matmul ins(%lx, %lw : tensor<4x8xf32>, tensor<8x8xf32>)
                             outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
    %sum = spmd.all_reduce %partial on @mesh axes = ["model"] : tensor<4x8xf32>
    spmd.yield %sum : tensor<4x8xf32>
  } : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

//--- axis_index.mlir
// A fully replicated result that adds the device's coordinate on "b": the
// four copies are 0, 1, 0, 1 apart. The second result is right.
spmd.mesh @mesh = <["a"=2, "b"=2]>
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y:2 = spmd.manual_computation(%x)
      in_shardings = [<@mesh, [{}]>]
      out_shardings = [<@mesh, [{}]>, <@mesh, [{}]>]
      manual_axes = ["a", "b"]
      (%l: tensor<4xf32>) {
    %i = spmd.axis_index "b" on @mesh : index
    %ii = arith.index_cast %i : index to i64
    %if = arith.sitofp %ii : i64 to f32
    %e = tensor.empty() : tensor<4xf32>
    %plus = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                            iterator_types = ["parallel"]}
        ins(%l : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%v: f32, %o: f32):
      %s = arith.addf %v, %if : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    spmd.yield %l, %plus : tensor<4xf32>, tensor<4xf32>
  } : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %y#0, %y#1 : tensor<4xf32>, tensor<4xf32>
}
