// Each entry and its twin compute the same values. The entry's tensors are
// updated in place where the op is their last use (an insert into a loop's
// accumulator, a generic reading its own init); the twin computes the same
// without any value to update. The `keeps_*` entries use a value again
// after the op that could have updated it: it must keep its old contents.

// Row i of the result is 2 * x[i], inserted row by row into an accumulator
// carried by the loop.
func.func @rows(%x: tensor<8x5xf32>) -> tensor<8x5xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x5xf32>) -> tensor<8x5xf32>
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %init) -> (tensor<8x5xf32>) {
    %row = tensor.extract_slice %x[%i, 0] [1, 5] [1, 1] : tensor<8x5xf32> to tensor<1x5xf32>
    %er = tensor.empty() : tensor<1x5xf32>
    %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%row : tensor<1x5xf32>) outs(%er : tensor<1x5xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.mulf %a, %two : f32
      linalg.yield %m : f32
    } -> tensor<1x5xf32>
    %next = tensor.insert_slice %d into %acc[%i, 0] [1, 5] [1, 1] : tensor<1x5xf32> into tensor<8x5xf32>
    scf.yield %next : tensor<8x5xf32>
  }
  return %r : tensor<8x5xf32>
}
func.func @rows_ref(%x: tensor<8x5xf32>) -> tensor<8x5xf32> {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<8x5xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x5xf32>) outs(%e : tensor<8x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<8x5xf32>
  return %d : tensor<8x5xf32>
}

// The loop's init is the argument `x`, read again after the loop and
// inside it (each iteration adds x's row 0 to the row it overwrites).
// Neither the argument nor its caller's copy may change.
func.func @keeps_init(%x: tensor<8x5xf32>) -> (tensor<8x5xf32>, tensor<8x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %x) -> (tensor<8x5xf32>) {
    %row = tensor.extract_slice %acc[%i, 0] [1, 5] [1, 1] : tensor<8x5xf32> to tensor<1x5xf32>
    %first = tensor.extract_slice %x[0, 0] [1, 5] [1, 1] : tensor<8x5xf32> to tensor<1x5xf32>
    %er = tensor.empty() : tensor<1x5xf32>
    %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
        ins(%row, %first : tensor<1x5xf32>, tensor<1x5xf32>) outs(%er : tensor<1x5xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    } -> tensor<1x5xf32>
    %next = tensor.insert_slice %d into %acc[%i, 0] [1, 5] [1, 1] : tensor<1x5xf32> into tensor<8x5xf32>
    scf.yield %next : tensor<8x5xf32>
  }
  return %r, %x : tensor<8x5xf32>, tensor<8x5xf32>
}
func.func @keeps_init_ref(%x: tensor<8x5xf32>) -> (tensor<8x5xf32>, tensor<8x5xf32>) {
  %e = tensor.empty() : tensor<8x5xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %x : tensor<8x5xf32>, tensor<8x5xf32>) outs(%e : tensor<8x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x5xf32>
  return %d, %x : tensor<8x5xf32>, tensor<8x5xf32>
}

// One value carried twice: the loop updates the first, reads the second.
func.func @keeps_twin_carried(%x: tensor<8x5xf32>) -> (tensor<8x5xf32>, tensor<8x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x5xf32>) -> tensor<8x5xf32>
  %r:2 = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %z, %b = %z) -> (tensor<8x5xf32>, tensor<8x5xf32>) {
    %row = tensor.extract_slice %x[%i, 0] [1, 5] [1, 1] : tensor<8x5xf32> to tensor<1x5xf32>
    %next = tensor.insert_slice %row into %a[%i, 0] [1, 5] [1, 1] : tensor<1x5xf32> into tensor<8x5xf32>
    scf.yield %next, %b : tensor<8x5xf32>, tensor<8x5xf32>
  }
  return %r#0, %r#1 : tensor<8x5xf32>, tensor<8x5xf32>
}
func.func @keeps_twin_carried_ref(%x: tensor<8x5xf32>) -> (tensor<8x5xf32>, tensor<8x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x5xf32>) -> tensor<8x5xf32>
  return %x, %z : tensor<8x5xf32>, tensor<8x5xf32>
}

// An insert whose destination is read after it, and one whose source and
// destination are one value.
func.func @keeps_dest(%x: tensor<8x5xf32>, %y: tensor<2x5xf32>) -> (tensor<8x5xf32>, tensor<8x5xf32>, tensor<8x5xf32>) {
  %a = tensor.insert_slice %y into %x[3, 0] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<8x5xf32>
  %e = tensor.empty() : tensor<8x5xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %x : tensor<8x5xf32>, tensor<8x5xf32>) outs(%e : tensor<8x5xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.subf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x5xf32>
  %self = tensor.insert_slice %d into %d[0, 0] [8, 5] [1, 1] : tensor<8x5xf32> into tensor<8x5xf32>
  return %d, %self, %x : tensor<8x5xf32>, tensor<8x5xf32>, tensor<8x5xf32>
}
func.func @keeps_dest_ref(%x: tensor<8x5xf32>, %y: tensor<2x5xf32>) -> (tensor<8x5xf32>, tensor<8x5xf32>, tensor<8x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x5xf32>) -> tensor<8x5xf32>
  %xs = tensor.extract_slice %x[3, 0] [2, 5] [1, 1] : tensor<8x5xf32> to tensor<2x5xf32>
  %ed = tensor.empty() : tensor<2x5xf32>
  %diff = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%y, %xs : tensor<2x5xf32>, tensor<2x5xf32>) outs(%ed : tensor<2x5xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.subf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<2x5xf32>
  %d = tensor.insert_slice %diff into %z[3, 0] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<8x5xf32>
  return %d, %d, %x : tensor<8x5xf32>, tensor<8x5xf32>, tensor<8x5xf32>
}

// A value made here (held by nothing else) and read after an insert into
// it and after a generic accumulating into it.
func.func @keeps_made(%x: tensor<8x5xf32>, %y: tensor<2x5xf32>) -> (tensor<8x5xf32>, tensor<8x5xf32>, tensor<8x5xf32>) {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<8x5xf32>
  %d = linalg.copy ins(%x : tensor<8x5xf32>) outs(%e : tensor<8x5xf32>) -> tensor<8x5xf32>
  %a = tensor.insert_slice %y into %d[3, 0] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<8x5xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x5xf32>) outs(%d : tensor<8x5xf32>) {
  ^bb0(%p: f32, %o: f32):
    %t = arith.mulf %p, %two : f32
    %q = arith.addf %o, %t : f32
    linalg.yield %q : f32
  } -> tensor<8x5xf32>
  return %a, %s, %d : tensor<8x5xf32>, tensor<8x5xf32>, tensor<8x5xf32>
}
func.func @keeps_made_ref(%x: tensor<8x5xf32>, %y: tensor<2x5xf32>) -> (tensor<8x5xf32>, tensor<8x5xf32>, tensor<8x5xf32>) {
  // No insert and no value written after another read: rows 3 and 4 of
  // %a are %y's, chosen by the row index (tensor.extract of %y).
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %e = tensor.empty() : tensor<8x5xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x5xf32>) outs(%e : tensor<8x5xf32>) {
  ^bb0(%p: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %lo = arith.cmpi uge, %i, %c3 : index
    %hi = arith.cmpi ult, %i, %c5 : index
    %in = arith.andi %lo, %hi : i1
    %off = arith.subi %i, %c3 : index
    %iy = arith.select %in, %off, %c0 : index
    %ye = tensor.extract %y[%iy, %j] : tensor<2x5xf32>
    %v = arith.select %in, %ye, %p : f32
    linalg.yield %v : f32
  } -> tensor<8x5xf32>
  %e2 = tensor.empty() : tensor<8x5xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %x : tensor<8x5xf32>, tensor<8x5xf32>) outs(%e2 : tensor<8x5xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %t = arith.mulf %p, %two : f32
    %r = arith.addf %q, %t : f32
    linalg.yield %r : f32
  } -> tensor<8x5xf32>
  return %a, %s, %x : tensor<8x5xf32>, tensor<8x5xf32>, tensor<8x5xf32>
}

// A generic accumulating into its init (C += A^T), where the init dies at
// the generic; and one whose init is also its input read transposed,
// which must not be updated in place (it would read what it wrote).
func.func @accumulate(%a: tensor<6x6xf32>, %c: tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<6x6xf32>) {
  %e = tensor.empty() : tensor<6x6xf32>
  %c2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<6x6xf32>) outs(%e : tensor<6x6xf32>) {
  ^bb0(%p: f32, %o: f32):
    linalg.yield %p : f32
  } -> tensor<6x6xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<6x6xf32>) outs(%c2 : tensor<6x6xf32>) {
  ^bb0(%p: f32, %o: f32):
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<6x6xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<6x6xf32>) outs(%s : tensor<6x6xf32>) {
  ^bb0(%p: f32, %o: f32):
    %q = arith.addf %o, %p : f32
    linalg.yield %q : f32
  } -> tensor<6x6xf32>
  return %s, %t : tensor<6x6xf32>, tensor<6x6xf32>
}
func.func @accumulate_ref(%a: tensor<6x6xf32>, %c: tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<6x6xf32>) {
  %e = tensor.empty() : tensor<6x6xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %c : tensor<6x6xf32>, tensor<6x6xf32>) outs(%e : tensor<6x6xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %q, %p : f32
    linalg.yield %r : f32
  } -> tensor<6x6xf32>
  %e2 = tensor.empty() : tensor<6x6xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s, %s : tensor<6x6xf32>, tensor<6x6xf32>) outs(%e2 : tensor<6x6xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<6x6xf32>
  return %s, %t : tensor<6x6xf32>, tensor<6x6xf32>
}

// A while loop whose accumulator takes a row per iteration, and a callee
// that inserts into its argument, which the caller reads afterwards.
func.func @while_rows(%x: tensor<8x5xf32>) -> tensor<8x5xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x5xf32>) -> tensor<8x5xf32>
  %r:2 = scf.while (%i = %c0, %acc = %z) : (index, tensor<8x5xf32>) -> (index, tensor<8x5xf32>) {
    %more = arith.cmpi slt, %i, %c8 : index
    scf.condition(%more) %i, %acc : index, tensor<8x5xf32>
  } do {
  ^bb0(%j: index, %a: tensor<8x5xf32>):
    %row = tensor.extract_slice %x[%j, 0] [1, 5] [1, 1] : tensor<8x5xf32> to tensor<1x5xf32>
    %next = tensor.insert_slice %row into %a[%j, 0] [1, 5] [1, 1] : tensor<1x5xf32> into tensor<8x5xf32>
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %next : index, tensor<8x5xf32>
  }
  return %r#1 : tensor<8x5xf32>
}
func.func @while_rows_ref(%x: tensor<8x5xf32>) -> tensor<8x5xf32> {
  return %x : tensor<8x5xf32>
}

func.func private @put_row(%d: tensor<8x5xf32>, %y: tensor<1x5xf32>) -> tensor<8x5xf32> {
  %r = tensor.insert_slice %y into %d[7, 0] [1, 5] [1, 1] : tensor<1x5xf32> into tensor<8x5xf32>
  return %r : tensor<8x5xf32>
}
func.func @keeps_call_arg(%x: tensor<8x5xf32>, %y: tensor<1x5xf32>) -> (tensor<8x5xf32>, tensor<8x5xf32>) {
  %r = func.call @put_row(%x, %y) : (tensor<8x5xf32>, tensor<1x5xf32>) -> tensor<8x5xf32>
  return %r, %x : tensor<8x5xf32>, tensor<8x5xf32>
}
func.func @keeps_call_arg_ref(%x: tensor<8x5xf32>, %y: tensor<1x5xf32>) -> (tensor<8x5xf32>, tensor<8x5xf32>) {
  // Row 7 of the first result is %y's, chosen by the row index; %x itself
  // is returned unchanged (nothing here may write into it).
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  %e = tensor.empty() : tensor<8x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x5xf32>) outs(%e : tensor<8x5xf32>) {
  ^bb0(%p: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %last = arith.cmpi eq, %i, %c7 : index
    %ye = tensor.extract %y[%c0, %j] : tensor<1x5xf32>
    %v = arith.select %last, %ye, %p : f32
    linalg.yield %v : f32
  } -> tensor<8x5xf32>
  return %r, %x : tensor<8x5xf32>, tensor<8x5xf32>
}

// A cache of 1024 rows filled 16 rows per iteration: updated in place, the
// device holds the cache once (4 MiB), not a copy of it per insert.
func.func @cache(%x: tensor<16x1024xf32>) -> tensor<1024x1024xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = scf.for %i = %c0 to %c1024 step %c16 iter_args(%acc = %z) -> (tensor<1024x1024xf32>) {
    %next = tensor.insert_slice %x into %acc[%i, 0] [16, 1024] [1, 1] : tensor<16x1024xf32> into tensor<1024x1024xf32>
    scf.yield %next : tensor<1024x1024xf32>
  }
  return %r : tensor<1024x1024xf32>
}
