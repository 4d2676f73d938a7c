// Unannotated input of partition/uneven.mlir (which checks the result) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["x"=4]>

func.func @sum_uneven(%a: tensor<10x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>})
    -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.reduce ins(%a : tensor<10x8xf32>) outs(%f : tensor<8xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

func.func @max_uneven(%a: tensor<10x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>},
                      %init: tensor<8xf32>)
    -> (tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  %r = linalg.reduce ins(%a : tensor<10x8xf32>) outs(%init : tensor<8xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.maximumf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<8xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

func.func @elementwise_uneven(%a: tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<10xf32> {
  %0 = math.exp %a : tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>

func.func @gather_uneven(%a: tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>})
    -> (tensor<10xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}]>}) {
  return %a : tensor<10xf32>
}
