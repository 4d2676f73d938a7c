spmd.mesh @mesh = <["model"=2]>

// tanh of a matmul whose 256-long contraction is split over 2 devices.
func.func @tanh_matmul(%h: tensor<8x256xf32>, %w: tensor<256x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> tensor<8x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x256xf32>) -> tensor<8x256xf32>
  %m = linalg.matmul ins(%h, %w : tensor<8x256xf32>, tensor<256x256xf32>) outs(%f : tensor<8x256xf32>) -> tensor<8x256xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<8x256xf32>) outs(%e : tensor<8x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<8x256xf32>
  return %n : tensor<8x256xf32>
}

// The matmul alone.
func.func @matmul(%h: tensor<8x256xf32>, %w: tensor<256x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> tensor<8x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x256xf32>) -> tensor<8x256xf32>
  %m = linalg.matmul ins(%h, %w : tensor<8x256xf32>, tensor<256x256xf32>) outs(%f : tensor<8x256xf32>) -> tensor<8x256xf32>
  return %m : tensor<8x256xf32>
}

// A recurrence through tanh: h <- tanh(h W + x), W split along its rows.
func.func @rnn(%x: tensor<8x256xf32>, %w: tensor<256x256xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>}) -> tensor<8x256xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x256xf32>) -> tensor<8x256xf32>
  %r = scf.for %t = %c0 to %c6 step %c1 iter_args(%h = %x) -> (tensor<8x256xf32>) {
    %m = linalg.matmul ins(%h, %w : tensor<8x256xf32>, tensor<256x256xf32>) outs(%f : tensor<8x256xf32>) -> tensor<8x256xf32>
    %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%m, %x : tensor<8x256xf32>, tensor<8x256xf32>) outs(%e : tensor<8x256xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %s = arith.addf %a, %b : f32
      %th = math.tanh %s : f32
      linalg.yield %th : f32
    } -> tensor<8x256xf32>
    scf.yield %n : tensor<8x256xf32>
  }
  return %r : tensor<8x256xf32>
}

// log(|s| + 1e-3) of a split sum: steep where the sum cancels to near 0.
func.func @log_matvec(%h: tensor<64x512xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>}, %w: tensor<512xf32>) -> tensor<64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %m = linalg.matvec ins(%h, %w : tensor<64x512xf32>, tensor<512xf32>) outs(%f : tensor<64xf32>) -> tensor<64xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%m : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %abs = math.absf %a : f32
    %c = arith.constant 1.0e-3 : f32
    %s = arith.addf %abs, %c : f32
    %l = math.log %s : f32
    linalg.yield %l : f32
  } -> tensor<64xf32>
  return %n : tensor<64xf32>
}
