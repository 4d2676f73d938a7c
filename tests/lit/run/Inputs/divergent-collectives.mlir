// A manual region whose all_reduce runs on device 0 only (run/divergent-collectives.test).
spmd.mesh @mesh = <["x"=2]>
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = spmd.manual_computation(%a) in_shardings = [<@mesh, [{"x"}]>]
      out_shardings = [<@mesh, [{"x"}]>] manual_axes = ["x"]
      (%l: tensor<2xf32>) {
    %i = spmd.axis_index "x" on @mesh : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %i, %c0 : index
    %s = scf.if %first -> tensor<2xf32> {
      %t = spmd.all_reduce %l on @mesh axes = ["x"] reduction = sum : tensor<2xf32>
      scf.yield %t : tensor<2xf32>
    } else {
      scf.yield %l : tensor<2xf32>
    }
    spmd.yield %s : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
