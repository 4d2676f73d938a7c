// Tensors with a dimension of size 0, their other dimensions split
// unevenly: the padding cut after a gather, slices and inserts of such
// tensors are built without the offsets upstream's verifier refuses
// ("offset 0 is out-of-bounds: 0 >= 0"), and reshapes of them have a rule
// (the rule divided by a size of 0: SIGFPE).
// RUN: spmd-run %s --entry=elementwise --check | FileCheck %s
// RUN: spmd-run %s --entry=empty_slice --check | FileCheck %s
// RUN: spmd-run %s --entry=reduce_nothing --check | FileCheck %s
// RUN: spmd-run %s --entry=insert_nothing --check | FileCheck %s
// RUN: spmd-run %s --entry=reshapes --check | FileCheck %s
// CHECK: check: PASS
spmd.mesh @mesh = <["x"=2, "y"=3]>
func.func @elementwise(%a: tensor<0x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>}) -> tensor<0x5xf32> {
  %e = math.exp %a : tensor<0x5xf32>
  return %e : tensor<0x5xf32>
}
func.func @empty_slice(%a: tensor<7x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<0x5xf32> {
  %s = tensor.extract_slice %a[3, 0] [0, 5] [1, 1] : tensor<7x5xf32> to tensor<0x5xf32>
  return %s : tensor<0x5xf32>
}
func.func @reduce_nothing(%a: tensor<0x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<5xf32> {
  %z = arith.constant 1.0 : f32
  %em = tensor.empty() : tensor<5xf32>
  %f = linalg.fill ins(%z : f32) outs(%em : tensor<5xf32>) -> tensor<5xf32>
  %r = linalg.reduce ins(%a : tensor<0x5xf32>) outs(%f : tensor<5xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<5xf32>
}
func.func @insert_nothing(%a: tensor<0x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"y"}]>},
                          %e: tensor<5x5xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {"y"}]>})
    -> tensor<5x5xf32> {
  %j = tensor.insert_slice %a into %e[2, 0] [0, 5] [1, 1] : tensor<0x5xf32> into tensor<5x5xf32>
  return %j : tensor<5x5xf32>
}
func.func @reshapes(%a: tensor<0x5x3xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}, {"y"}]>},
                    %b: tensor<4x0xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<0x3xf32>, tensor<4x0x3xf32>) {
  %c = tensor.collapse_shape %a [[0, 1], [2]] : tensor<0x5x3xf32> into tensor<0x3xf32>
  %e = tensor.expand_shape %b [[0], [1, 2]] output_shape [4, 0, 3] : tensor<4x0xf32> into tensor<4x0x3xf32>
  return %c, %e : tensor<0x3xf32>, tensor<4x0x3xf32>
}
