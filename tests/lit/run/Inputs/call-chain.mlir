// Calls three deep, from the condition and the body of a while loop, with
// pending results and differently sharded arguments (crashed while the
// symbol table named erased functions).
spmd.mesh @mesh = <["x"=2, "y"=2]>
func.func private @c(%t: tensor<6x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x", "y"}]>}) -> (tensor<6x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}], partial={"x"}>}, tensor<6x5xf32>) {
  %s = math.sin %t : tensor<6x5xf32>
  return %s, %t : tensor<6x5xf32>, tensor<6x5xf32>
}
func.func private @b(%t: tensor<6x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"y"}, {"x"}]>}) -> (tensor<6x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %r:2 = func.call @c(%t) : (tensor<6x5xf32>) -> (tensor<6x5xf32>, tensor<6x5xf32>)
  %s = arith.addf %r#0, %r#1 : tensor<6x5xf32>
  return %s : tensor<6x5xf32>
}
func.func private @a(%t: tensor<6x5xf32>, %n: index) -> (tensor<6x5xf32>, i1) {
  %c2 = arith.constant 2 : index
  %x = func.call @b(%t) : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %p = arith.cmpi slt, %n, %c2 : index
  return %x, %p : tensor<6x5xf32>, i1
}
func.func @main(%u: tensor<6x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x", "y"}, {}]>}) -> (tensor<6x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%t = %u, %n = %c0) : (tensor<6x5xf32>, index) -> (tensor<6x5xf32>, index) {
    %y:2 = func.call @a(%t, %n) : (tensor<6x5xf32>, index) -> (tensor<6x5xf32>, i1)
    scf.condition(%y#1) %y#0, %n : tensor<6x5xf32>, index
  } do {
  ^bb0(%t: tensor<6x5xf32>, %n: index):
    %z = func.call @b(%t) : (tensor<6x5xf32>) -> tensor<6x5xf32>
    %n1 = arith.addi %n, %c1 : index
    scf.yield %z, %n1 : tensor<6x5xf32>, index
  }
  %f = func.call @b(%r#0) : (tensor<6x5xf32>) -> tensor<6x5xf32>
  return %f : tensor<6x5xf32>
}
