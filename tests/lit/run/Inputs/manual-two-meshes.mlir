// Regions on two meshes in one module: each function's --check reference
// is replicated on the mesh of its own region.
spmd.mesh @m2 = <["x"=2]>
spmd.mesh @m4 = <["y"=4]>
func.func @a(%v: tensor<8xf32>) -> tensor<8xf32> {
  %r = spmd.manual_computation(%v) in_shardings = [<@m2, [{"x"}]>] out_shardings = [<@m2, [{"x"}]>] manual_axes = ["x"] (%l: tensor<4xf32>) {
    spmd.yield %l : tensor<4xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @b(%v: tensor<8xf32>) -> tensor<8xf32> {
  %r = spmd.manual_computation(%v) in_shardings = [<@m4, [{"y"}]>] out_shardings = [<@m4, [{"y"}]>] manual_axes = ["y"] (%l: tensor<2xf32>) {
    spmd.yield %l : tensor<2xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
