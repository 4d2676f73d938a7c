// Unannotated input of partition/quantized-matmul.mlir (which checks the result) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["x"=4]>
func.func @zero_points(%a: tensor<1x2x1002xi8> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"x"}]>}, %b: tensor<1x1002x2xi8> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}]>}) -> tensor<1x2x2xi32> {
  %za = "tosa.const"() {values = dense<3> : tensor<1xi8>} : () -> tensor<1xi8>
  %zb = "tosa.const"() {values = dense<5> : tensor<1xi8>} : () -> tensor<1xi8>
  %m = tosa.matmul %a, %b, %za, %zb : (tensor<1x2x1002xi8>, tensor<1x1002x2xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2xi32>
  return %m : tensor<1x2x2xi32>
}

// -----

spmd.mesh @mesh = <["x"=4]>
func.func @no_zero_points(%a: tensor<1x2x1002xi8> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"x"}]>}, %b: tensor<1x1002x2xi8> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}, {}]>}) -> tensor<1x2x2xi32> {
  %za = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %zb = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %m = tosa.matmul %a, %b, %za, %zb : (tensor<1x2x1002xi8>, tensor<1x1002x2xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2xi32>
  return %m : tensor<1x2x2xi32>
}
