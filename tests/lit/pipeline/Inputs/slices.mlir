// Unannotated input of partition/slices.mlir (which checks the result) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["x"=4]>

func.func @rows(%a: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<12x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = tensor.extract_slice %a[2, 0] [12, 8] [1, 1] : tensor<16x8xf32> to tensor<12x8xf32>
  return %0 : tensor<12x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=2]>

func.func @strided(%a: tensor<12x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<5x10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = tensor.extract_slice %a[1, 0] [5, 10] [2, 1] : tensor<12x10xf32> to tensor<5x10xf32>
  return %0 : tensor<5x10xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

func.func @far(%a: tensor<16x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %0 = tensor.extract_slice %a[8, 0] [8, 8] [1, 1] : tensor<16x8xf32> to tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

func.func @pad_rows(%a: tensor<14x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<17x9xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) {
  %c = arith.constant 0.5 : f32
  %0 = tensor.pad %a low[1, 0] high[2, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<14x8xf32> to tensor<17x9xf32>
  return %0 : tensor<17x9xf32>
}
