// A manual region whose all_reduce over "y" (a group inside each process on
// 2 processes) runs on y = 0 only: mpi/divergent-collective-np2.
spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = spmd.manual_computation(%a) in_shardings = [<@mesh, [{"y"}]>]
      out_shardings = [<@mesh, [{"y"}]>] manual_axes = ["x", "y"]
      (%l: tensor<2xf32>) {
    %i = spmd.axis_index "y" on @mesh : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %i, %c0 : index
    %s = scf.if %first -> tensor<2xf32> {
      %t = spmd.all_reduce %l on @mesh axes = ["y"] reduction = sum : tensor<2xf32>
      scf.yield %t : tensor<2xf32>
    } else {
      scf.yield %l : tensor<2xf32>
    }
    spmd.yield %s : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
