// Tests that propagation, partitioning and spmd-optimize-collectives move the
// analytic minimum of bytes per device on the classic layouts (the cases and
// the partitioned programs are checked and explained in
// partition/optimality.mlir).
// RUN: spmd-opt %s -split-input-file --spmd-propagate --spmd-partition --spmd-optimize-collectives | FileCheck %S/../partition/optimality.mlir
// RUN: spmd-opt %s -split-input-file --spmd-propagate --spmd-partition --spmd-optimize-collectives --spmd-comm-report -o /dev/null | FileCheck %s --check-prefix=REPORT

spmd.mesh @mesh = <["data"=2, "model"=4]>

// REPORT: "total_comm_bytes": 196608
func.func @megatron_mlp(%x: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                        %w1: tensor<1024x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                        %w2: tensor<4096x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x4096xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<64x1024xf32>, tensor<1024x4096xf32>) outs(%f1 : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<64x4096xf32>) outs(%e1 : tensor<64x4096xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<64x4096xf32>
  %e2 = tensor.empty() : tensor<64x1024xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<64x4096xf32>, tensor<4096x1024xf32>) outs(%f2 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// REPORT: "total_comm_bytes": 98304
func.func @megatron_sequence_parallel(%x: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                        %w1: tensor<1024x4096xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                        %w2: tensor<4096x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", "model"}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x4096xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<64x1024xf32>, tensor<1024x4096xf32>) outs(%f1 : tensor<64x4096xf32>) -> tensor<64x4096xf32>
  %e2 = tensor.empty() : tensor<64x1024xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<64x4096xf32>, tensor<4096x1024xf32>) outs(%f2 : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// REPORT: "total_comm_bytes": 4194304
func.func @weight_gradient(%x: tensor<8192x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                           %dy: tensor<8192x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>})
    -> (tensor<1024x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %dw = linalg.generic {indexing_maps = [affine_map<(b, h, g) -> (b, h)>, affine_map<(b, h, g) -> (b, g)>,
                                         affine_map<(b, h, g) -> (h, g)>],
                        iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%x, %dy : tensor<8192x1024xf32>, tensor<8192x1024xf32>) outs(%f : tensor<1024x1024xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1024x1024xf32>
  return %dw : tensor<1024x1024xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// REPORT: "total_comm_bytes": 2097152
func.func @weight_gradient_fsdp(%x: tensor<8192x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                                %dy: tensor<8192x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>})
    -> (tensor<1024x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %dw = linalg.generic {indexing_maps = [affine_map<(b, h, g) -> (b, h)>, affine_map<(b, h, g) -> (b, g)>,
                                         affine_map<(b, h, g) -> (h, g)>],
                        iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%x, %dy : tensor<8192x1024xf32>, tensor<8192x1024xf32>) outs(%f : tensor<1024x1024xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1024x1024xf32>
  return %dw : tensor<1024x1024xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// REPORT: "total_comm_bytes": 2097152
func.func @fsdp_forward(%x: tensor<8192x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                        %w: tensor<1024x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>})
    -> (tensor<8192x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8192x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8192x1024xf32>) -> tensor<8192x1024xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8192x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<8192x1024xf32>) -> tensor<8192x1024xf32>
  return %y : tensor<8192x1024xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// REPORT: "comm_bytes": 24576,
// REPORT: "op": "redistribute"
// REPORT: "total_comm_bytes": 24576
func.func @transpose_reshard(%x: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {"model"}]>})
    -> (tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {"data"}]>}) {
  return %x : tensor<64x1024xf32>
}

// -----

spmd.mesh @mesh = <["data"=2, "model"=4]>

// REPORT: "total_comm_bytes": 196608
func.func @attention(%x: tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                     %wq: tensor<1024x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                     %wk: tensor<1024x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                     %wv: tensor<1024x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"model"}]>},
                     %wo: tensor<1024x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"model"}, {}]>})
    -> (tensor<64x1024xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<64x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<64x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %v = linalg.matmul ins(%x, %wv : tensor<64x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %q4 = tensor.expand_shape %q [[0, 1], [2, 3]] output_shape [2, 32, 8, 128] : tensor<64x1024xf32> into tensor<2x32x8x128xf32>
  %k4 = tensor.expand_shape %k [[0, 1], [2, 3]] output_shape [2, 32, 8, 128] : tensor<64x1024xf32> into tensor<2x32x8x128xf32>
  %v4 = tensor.expand_shape %v [[0, 1], [2, 3]] output_shape [2, 32, 8, 128] : tensor<64x1024xf32> into tensor<2x32x8x128xf32>
  %es = tensor.empty() : tensor<2x8x32x32xf32>
  %fs = linalg.fill ins(%z : f32) outs(%es : tensor<2x8x32x32xf32>) -> tensor<2x8x32x32xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, s, t, d) -> (b, s, h, d)>,
                                        affine_map<(b, h, s, t, d) -> (b, t, h, d)>,
                                        affine_map<(b, h, s, t, d) -> (b, h, s, t)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q4, %k4 : tensor<2x32x8x128xf32>, tensor<2x32x8x128xf32>) outs(%fs : tensor<2x8x32x32xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x8x32x32xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(b, h, s, t) -> (b, h, s, t)>, affine_map<(b, h, s, t) -> (b, h, s, t)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x8x32x32xf32>) outs(%es : tensor<2x8x32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ex = math.exp %a : f32
    linalg.yield %ex : f32
  } -> tensor<2x8x32x32xf32>
  %er = tensor.empty() : tensor<2x8x32xf32>
  %fr = linalg.fill ins(%z : f32) outs(%er : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %sum = linalg.reduce ins(%p : tensor<2x8x32x32xf32>) outs(%fr : tensor<2x8x32xf32>) dimensions = [3]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %sm = linalg.generic {indexing_maps = [affine_map<(b, h, s, t) -> (b, h, s, t)>, affine_map<(b, h, s, t) -> (b, h, s)>,
                                         affine_map<(b, h, s, t) -> (b, h, s, t)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p, %sum : tensor<2x8x32x32xf32>, tensor<2x8x32xf32>) outs(%es : tensor<2x8x32x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %d = arith.divf %a, %c : f32
    linalg.yield %d : f32
  } -> tensor<2x8x32x32xf32>
  %ec = tensor.empty() : tensor<2x32x8x128xf32>
  %fc = linalg.fill ins(%z : f32) outs(%ec : tensor<2x32x8x128xf32>) -> tensor<2x32x8x128xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(b, s, h, d, t) -> (b, h, s, t)>,
                                        affine_map<(b, s, h, d, t) -> (b, t, h, d)>,
                                        affine_map<(b, s, h, d, t) -> (b, s, h, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%sm, %v4 : tensor<2x8x32x32xf32>, tensor<2x32x8x128xf32>) outs(%fc : tensor<2x32x8x128xf32>) {
  ^bb0(%a: f32, %b2: f32, %acc: f32):
    %m = arith.mulf %a, %b2 : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x32x8x128xf32>
  %c2 = tensor.collapse_shape %c [[0, 1], [2, 3]] : tensor<2x32x8x128xf32> into tensor<64x1024xf32>
  %y = linalg.matmul ins(%c2, %wo : tensor<64x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %y : tensor<64x1024xf32>
}
