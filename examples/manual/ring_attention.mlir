// Ring attention: the sequence is split over "x"; each device keeps its
// queries and passes its keys and values around the ring with
// collective_permute, folding each block into an online softmax (running
// row maxima m, sums l and outputs acc). The result equals attention over
// the whole sequence, softmax(q k^T) v:
//
//   spmd-run examples/manual/ring_attention.mlir --check

spmd.mesh @mesh = <["x"=4]>

#qk = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
       affine_map<(m, n, k) -> (m, n)>]
#rows = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m)>]
#byrow = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m)>,
          affine_map<(m, n) -> (m, n)>]
#vec = [affine_map<(m) -> (m)>, affine_map<(m) -> (m)>, affine_map<(m) -> (m)>]

func.func @attention(%q: tensor<64x16xf32>, %k: tensor<64x16xf32>,
                     %v: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %o = spmd.manual_computation(%q, %k, %v)
      in_shardings = [<@mesh, [{"x"}, {}]>, <@mesh, [{"x"}, {}]>,
                      <@mesh, [{"x"}, {}]>]
      out_shardings = [<@mesh, [{"x"}, {}]>]
      manual_axes = ["x"]
      (%lq: tensor<16x16xf32>, %lk: tensor<16x16xf32>, %lv: tensor<16x16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %eo = tensor.empty() : tensor<16x16xf32>
    %er = tensor.empty() : tensor<16xf32>
    %acc0 = linalg.fill ins(%zero : f32) outs(%eo : tensor<16x16xf32>) -> tensor<16x16xf32>
    %m0 = linalg.fill ins(%ninf : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
    %l0 = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
    %r:5 = scf.for %i = %c0 to %c4 step %c1
        iter_args(%kb = %lk, %vb = %lv, %m = %m0, %l = %l0, %acc = %acc0)
        -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>) {
      // Scores of this block of keys: q kb^T.
      %sz = linalg.fill ins(%zero : f32) outs(%eo : tensor<16x16xf32>) -> tensor<16x16xf32>
      %s = linalg.generic {indexing_maps = #qk, iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%lq, %kb : tensor<16x16xf32>, tensor<16x16xf32>) outs(%sz : tensor<16x16xf32>) {
      ^bb0(%a: f32, %b: f32, %c: f32):
        %p = arith.mulf %a, %b : f32
        %t = arith.addf %c, %p : f32
        linalg.yield %t : f32
      } -> tensor<16x16xf32>
      // New row maxima.
      %mn = linalg.generic {indexing_maps = #rows, iterator_types = ["parallel", "reduction"]}
          ins(%s : tensor<16x16xf32>) outs(%m : tensor<16xf32>) {
      ^bb0(%x: f32, %y: f32):
        %t = arith.maximumf %x, %y : f32
        linalg.yield %t : f32
      } -> tensor<16xf32>
      // exp(s - mn), and the correction exp(m - mn) of what was summed.
      %p = linalg.generic {indexing_maps = #byrow, iterator_types = ["parallel", "parallel"]}
          ins(%s, %mn : tensor<16x16xf32>, tensor<16xf32>) outs(%eo : tensor<16x16xf32>) {
      ^bb0(%x: f32, %y: f32, %z: f32):
        %d = arith.subf %x, %y : f32
        %e = math.exp %d : f32
        linalg.yield %e : f32
      } -> tensor<16x16xf32>
      %corr = linalg.generic {indexing_maps = #vec, iterator_types = ["parallel"]}
          ins(%m, %mn : tensor<16xf32>, tensor<16xf32>) outs(%er : tensor<16xf32>) {
      ^bb0(%x: f32, %y: f32, %z: f32):
        %d = arith.subf %x, %y : f32
        %e = math.exp %d : f32
        linalg.yield %e : f32
      } -> tensor<16xf32>
      // l * corr + row sums of p.
      %lc = arith.mulf %l, %corr : tensor<16xf32>
      %ln = linalg.generic {indexing_maps = #rows, iterator_types = ["parallel", "reduction"]}
          ins(%p : tensor<16x16xf32>) outs(%lc : tensor<16xf32>) {
      ^bb0(%x: f32, %y: f32):
        %t = arith.addf %x, %y : f32
        linalg.yield %t : f32
      } -> tensor<16xf32>
      // acc * corr + p vb.
      %ac = linalg.generic {indexing_maps = #byrow, iterator_types = ["parallel", "parallel"]}
          ins(%acc, %corr : tensor<16x16xf32>, tensor<16xf32>) outs(%eo : tensor<16x16xf32>) {
      ^bb0(%x: f32, %y: f32, %z: f32):
        %t = arith.mulf %x, %y : f32
        linalg.yield %t : f32
      } -> tensor<16x16xf32>
      %an = linalg.matmul ins(%p, %vb : tensor<16x16xf32>, tensor<16x16xf32>)
                          outs(%ac : tensor<16x16xf32>) -> tensor<16x16xf32>
      // The next device's keys and values.
      %kn = spmd.collective_permute %kb on @mesh axes = ["x"] pairs = [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<16x16xf32>
      %vn = spmd.collective_permute %vb on @mesh axes = ["x"] pairs = [0 -> 1, 1 -> 2, 2 -> 3, 3 -> 0] : tensor<16x16xf32>
      scf.yield %kn, %vn, %mn, %ln, %an : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16x16xf32>
    }
    %out = linalg.generic {indexing_maps = #byrow, iterator_types = ["parallel", "parallel"]}
        ins(%r#4, %r#3 : tensor<16x16xf32>, tensor<16xf32>) outs(%eo : tensor<16x16xf32>) {
    ^bb0(%x: f32, %y: f32, %z: f32):
      %t = arith.divf %x, %y : f32
      linalg.yield %t : f32
    } -> tensor<16x16xf32>
    spmd.yield %out : tensor<16x16xf32>
  } : (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}
