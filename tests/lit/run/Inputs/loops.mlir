// Loops whose carried values change form across regions: the generic
// partitioning of RegionBranchOpInterface ops gives every value carried
// together one layout (scf.while once required its carried types to be the
// result types).
spmd.mesh @mesh = <["x"=4]>
// A while loop whose condition passes on something else than what it
// received: the before region carries (tensor, counter), the after region
// only the tensor.
func.func @halve(%x: tensor<10x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<10x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %half = arith.constant dense<0.5> : tensor<10x6xf32>
  %r:2 = scf.while (%t = %x, %n = %c0) : (tensor<10x6xf32>, i32) -> (tensor<10x6xf32>, i32) {
    %more = arith.cmpi slt, %n, %c3 : i32
    scf.condition(%more) %t, %n : tensor<10x6xf32>, i32
  } do {
  ^bb0(%t: tensor<10x6xf32>, %n: i32):
    %e = tensor.empty() : tensor<10x6xf32>
    %h = linalg.mul ins(%t, %half : tensor<10x6xf32>, tensor<10x6xf32>) outs(%e : tensor<10x6xf32>) -> tensor<10x6xf32>
    %n1 = arith.addi %n, %c1 : i32
    scf.yield %h, %n1 : tensor<10x6xf32>, i32
  }
  return %r#0, %r#1 : tensor<10x6xf32>, i32
}

// The condition region computes a new tensor to pass on (types differ
// from the carried ones: the before region carries a row sum).
func.func @reduce_until(%x: tensor<8x4xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %e8 = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %r = scf.while (%i = %c0, %acc = %init) : (index, tensor<8xf32>) -> tensor<8xf32> {
    %more = arith.cmpi slt, %i, %c2 : index
    %s = linalg.reduce { arith.addf } ins(%x : tensor<8x4xf32>) outs(%acc : tensor<8xf32>) dimensions = [1]
    scf.condition(%more) %s : tensor<8xf32>
  } do {
  ^bb0(%s: tensor<8xf32>):
    %j = arith.addi %c1, %c1 : index
    scf.yield %j, %s : index, tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// A loop over a branch over a loop: an uneven split carried through three
// levels of regions, a matmul inside whose result is resharded at the yield.
func.func @nested(%x: tensor<6x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}, %w: tensor<6x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}, %k: index) -> tensor<6x6xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<6x6xf32>) {
    %odd = arith.cmpi ult, %i, %k : index
    %next = scf.if %odd -> tensor<6x6xf32> {
      %e = tensor.empty() : tensor<6x6xf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x6xf32>) -> tensor<6x6xf32>
      %m = linalg.matmul ins(%acc, %w : tensor<6x6xf32>, tensor<6x6xf32>) outs(%f : tensor<6x6xf32>) -> tensor<6x6xf32>
      scf.yield %m : tensor<6x6xf32>
    } else {
      %inner = scf.for %j = %c0 to %c1 step %c1 iter_args(%t = %acc) -> (tensor<6x6xf32>) {
        %e = tensor.empty() : tensor<6x6xf32>
        %s = linalg.add ins(%t, %t : tensor<6x6xf32>, tensor<6x6xf32>) outs(%e : tensor<6x6xf32>) -> tensor<6x6xf32>
        scf.yield %s : tensor<6x6xf32>
      }
      scf.yield %inner : tensor<6x6xf32>
    }
    scf.yield %next : tensor<6x6xf32>
  }
  return %r : tensor<6x6xf32>
}

// One value passed as two inits of different layouts: one carried value is
// the input itself, the other its transpose. Layouts were chosen per value,
// so both inits got one layout.
func.func @one_value_two_inits(%x: tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x8xf32>, tensor<8x8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{}, {"x"}]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%p = %x, %q = %x) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
    %e = tensor.empty() : tensor<8x8xf32>
    %t = linalg.transpose ins(%q : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) permutation = [1, 0]
    %e2 = tensor.empty() : tensor<8x8xf32>
    %s = linalg.add ins(%p, %p : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %s, %t : tensor<8x8xf32>, tensor<8x8xf32>
  }
  return %r#0, %r#1 : tensor<8x8xf32>, tensor<8x8xf32>
}
