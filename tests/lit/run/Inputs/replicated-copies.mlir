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

//--- one_device.mlir
// Only device 3 (a=1, b=1) adds a*b = 1: its copy alone is named, against
// device 1's, the first holder of the same columns.
spmd.mesh @mesh = <["a"=2, "b"=2]>
func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = spmd.manual_computation(%x)
      in_shardings = [<@mesh, [{}, {"b"}]>]
      out_shardings = [<@mesh, [{}, {"b"}]>]
      manual_axes = ["a", "b"]
      (%l: tensor<4x2xf32>) {
    %ia = spmd.axis_index "a" on @mesh : index
    %ib = spmd.axis_index "b" on @mesh : index
    %p = arith.muli %ia, %ib : index
    %ii = arith.index_cast %p : index to i64
    %d = arith.sitofp %ii : i64 to f32
    %e = tensor.empty() : tensor<4x2xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%l : tensor<4x2xf32>) outs(%e : tensor<4x2xf32>) {
    ^bb0(%v: f32, %o: f32):
      %t = arith.addf %v, %d : f32
      linalg.yield %t : f32
    } -> tensor<4x2xf32>
    spmd.yield %r : tensor<4x2xf32>
  } : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

//--- forgot_bf16.mlir
// The missing all_reduce in bf16 over 32 terms per device: the partial
// sums are far apart, though within what the check allows a bf16 result
// against a reference it cannot widen. Copies are held to each other.
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @main(%x: tensor<8x64xbf16>, %w: tensor<64x8xbf16>) -> tensor<8x8xbf16> {
  %y = spmd.manual_computation(%x, %w)
      in_shardings = [<@mesh, [{"data"}, {"model"}]>, <@mesh, [{"model"}, {}]>]
      out_shardings = [<@mesh, [{"data"}, {}]>]
      manual_axes = ["data", "model"]
      (%lx: tensor<4x32xbf16>, %lw: tensor<32x8xbf16>) {
    %zero = arith.constant 0.0 : bf16
    %e = tensor.empty() : tensor<4x8xbf16>
    %f = linalg.fill ins(%zero : bf16) outs(%e : tensor<4x8xbf16>) -> tensor<4x8xbf16>
    %partial = linalg.matmul ins(%lx, %lw : tensor<4x32xbf16>, tensor<32x8xbf16>)
                             outs(%f : tensor<4x8xbf16>) -> tensor<4x8xbf16>
    spmd.yield %partial : tensor<4x8xbf16>
  } : (tensor<8x64xbf16>, tensor<64x8xbf16>) -> tensor<8x8xbf16>
  return %y : tensor<8x8xbf16>
}

//--- scalar.mlir
// A scalar result has no sharding: every device returns it, and each
// device's must be the same. Here it is element 0 of a value that differs.
spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<4xf32>) -> f32 {
  %y = spmd.manual_computation(%a) in_shardings = [<@mesh, [{}]>]
      out_shardings = [<@mesh, [{}]>] manual_axes = ["x"] (%l: tensor<4xf32>) {
    %i = spmd.axis_index "x" on @mesh : index
    %ii = arith.index_cast %i : index to i64
    %if = arith.sitofp %ii : i64 to f32
    %e = tensor.empty() : tensor<4xf32>
    %f = linalg.fill ins(%if : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %r = arith.addf %l, %f : tensor<4xf32>
    spmd.yield %r : tensor<4xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  %c0 = arith.constant 0 : index
  %s = tensor.extract %y[%c0] : tensor<4xf32>
  return %s : f32
}
