// A data layout, as torch-mlir and IREE importers write one: both tools
// read it (spmd-run did not register DLTI).
module attributes {dlti.dl_spec = #dlti.dl_spec<"dlti.endianness" = "little", index = 64 : i64>} {
  spmd.mesh @mesh = <["x"=2]>
  func.func @main(%a: tensor<4x2xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4x2xf32> {
    %0 = arith.addf %a, %a : tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}
