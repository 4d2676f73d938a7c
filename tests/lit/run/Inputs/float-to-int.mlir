// Floats out of the integer range, and NaN, converted to integers: a
// plain C++ conversion is undefined there; the runtime saturates (NaN
// gives 0), the same in the partitioned and the reference program.
spmd.mesh @mesh = <["x"=2]>
func.func @f(%x: tensor<4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> (tensor<4xi64>, tensor<4xi32>) {
  %e = tensor.empty() : tensor<4xi64>
  %e32 = tensor.empty() : tensor<4xi32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                         iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e, %e32 : tensor<4xi64>, tensor<4xi32>) {
  ^bb0(%v: f32, %o: i64, %o32: i32):
    %i = linalg.index 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %big = arith.constant 1.0e30 : f32
    %zero = arith.constant 0.0 : f32
    %nan = arith.divf %zero, %zero : f32
    %pos = arith.mulf %big, %big : f32
    %neg = arith.negf %big : f32
    %is0 = arith.cmpi eq, %i, %c0 : index
    %is1 = arith.cmpi eq, %i, %c1 : index
    %is2 = arith.cmpi eq, %i, %c2 : index
    %a = arith.select %is2, %neg, %v : f32
    %b = arith.select %is1, %pos, %a : f32
    %c = arith.select %is0, %nan, %b : f32
    %w = arith.fptosi %c : f32 to i64
    %n = arith.fptosi %c : f32 to i32
    linalg.yield %w, %n : i64, i32
  } -> (tensor<4xi64>, tensor<4xi32>)
  return %r#0, %r#1 : tensor<4xi64>, tensor<4xi32>
}
