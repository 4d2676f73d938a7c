// Ops that run one of their regions, on split tensors, reading tensors
// from outside their regions.
spmd.mesh @mesh = <["x"=2]>

func.func @execute_region(%a: tensor<6x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %b: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %r = scf.execute_region -> tensor<6x4xf32> {
    %s = arith.addf %a, %b : tensor<6x4xf32>
    scf.yield %s : tensor<6x4xf32>
  }
  return %r : tensor<6x4xf32>
}

func.func @index_switch(%a: tensor<5x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %k: index) -> tensor<5x4xf32> {
  %r = scf.index_switch %k -> tensor<5x4xf32>
  case 1 {
    %s = math.exp %a : tensor<5x4xf32>
    scf.yield %s : tensor<5x4xf32>
  }
  default {
    %t = math.tanh %a : tensor<5x4xf32>
    scf.yield %t : tensor<5x4xf32>
  }
  return %r : tensor<5x4xf32>
}

// A branch with scalar results whose region reads a split tensor.
func.func @scalar_if(%a: tensor<7xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}, %k: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c6 = arith.constant 6 : index
  %p = arith.cmpi eq, %k, %c0 : index
  %r = scf.if %p -> f32 {
    %e = tensor.extract %a[%c6] : tensor<7xf32>
    scf.yield %e : f32
  } else {
    %e = tensor.extract %a[%k] : tensor<7xf32>
    scf.yield %e : f32
  }
  return %r : f32
}
