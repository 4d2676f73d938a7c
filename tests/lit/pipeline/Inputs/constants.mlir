// Unannotated input of partition/constants.mlir (which checks the result) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["x"=2]>

func.func @constants(%x: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) {
  %t = "tosa.const"() {values = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %two = arith.constant dense<2.0> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.add ins(%t, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.mul ins(%a, %two : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

func.func @splat_two_layouts(%x: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %y: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> (tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) {
  %t = "tosa.const"() {values = dense<3.0> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %a = linalg.add ins(%t, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = linalg.add ins(%t, %y : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}

func.func @tensor_splat_two_layouts(%x: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %y: tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %s: f32) -> (tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, tensor<4x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) {
  %t = tensor.splat %s : tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %a = linalg.add ins(%t, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = linalg.add ins(%t, %y : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}
