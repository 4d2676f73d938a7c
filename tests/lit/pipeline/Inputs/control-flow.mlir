// Unannotated input of partition/control-flow.mlir (which checks the result) for
// pipeline/partition-cases.test.

spmd.mesh @mesh = <["data"=2, "model"=4]>

func.func @loop(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}, %n: index) -> tensor<8x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<8x16xf32>) {
    %b = math.tanh %a : tensor<8x16xf32>
    scf.yield %b : tensor<8x16xf32>
  }
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

func.func @loop_matmul(%x: tensor<8x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                       %w: tensor<64x64xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}, %n: index) -> tensor<8x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %0 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %f) -> (tensor<8x64xf32>) {
    %m = linalg.matmul ins(%x, %w : tensor<8x64xf32>, tensor<64x64xf32>) outs(%a : tensor<8x64xf32>) -> tensor<8x64xf32>
    scf.yield %m : tensor<8x64xf32>
  }
  return %0 : tensor<8x64xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

func.func @branch(%c: i1, %x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> tensor<8x16xf32> {
  %0 = scf.if %c -> tensor<8x16xf32> {
    %e = math.exp %x : tensor<8x16xf32>
    scf.yield %e : tensor<8x16xf32>
  } else {
    %l = math.log %x : tensor<8x16xf32>
    scf.yield %l : tensor<8x16xf32>
  }
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

func.func @callee(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = math.tanh %x : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
func.func @caller(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> tensor<8x16xf32> {
  %0 = func.call @callee(%x) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

func.func @constraint(%x: tensor<8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) -> tensor<8x16xf32> {
  %0 = spmd.sharding_constraint %x <@mesh, [{}, {"data"}]> : tensor<8x16xf32>
  %1 = math.exp %0 : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

spmd.mesh @mesh = <["x"=4]>
func.func @scalar_blocks(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %k: index) -> f32 {
  %c4 = arith.constant 4 : index
  %big = arith.cmpi sge, %k, %c4 : index
  %c6 = arith.constant 6 : index
  %r = scf.execute_region -> f32 {
    cf.cond_br %big, ^high, ^low
  ^high:
    %v = tensor.extract %x[%c6] : tensor<8xf32>
    scf.yield %v : f32
  ^low:
    %w = tensor.extract %x[%k] : tensor<8xf32>
    scf.yield %w : f32
  }
  return %r : f32
}

func.func @parallel_reduce(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %v = tensor.extract %x[%i] : tensor<8xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      scf.reduce.return %t : f32
    }
  }
  return %s : f32
}
