// math.fma rounds once: (1 + 2^-12)^2 - (1 + 2^-11) is 2^-24 in f32 and
// (1 + 2^-27)^2 - (1 + 2^-26) is 2^-54 in f64; a product rounded before
// the sum gives 0. Sharded over two devices, in a kernel body and as a
// tensor op.
spmd.mesh @mesh = <["x"=2]>

func.func @tensor_f32(%a: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xf32> {
  %c = arith.constant dense<-1.00048828125> : tensor<8xf32>
  %r = math.fma %a, %a, %c : tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @body_f64(%a: tensor<8xf64> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<8xf64> {
  %c = arith.constant -1.0000000149011612 : f64
  %e = tensor.empty() : tensor<8xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<8xf64>) outs(%e : tensor<8xf64>) {
  ^bb0(%x: f64, %o: f64):
    %y = math.fma %x, %x, %c : f64
    linalg.yield %y : f64
  } -> tensor<8xf64>
  return %r : tensor<8xf64>
}
