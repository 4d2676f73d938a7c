// A MobileBERT-style block as IREE's TensorFlow importer writes it: every
// padding, offset and stride (and expand_shape's output shape) is an SSA
// value of an arith.constant, not a static entry.
spmd.mesh @mesh = <["x"=4]>

#id = affine_map<(b, s, h) -> (b, s, h)>
#bias = affine_map<(b, s, h) -> (h)>
#q = affine_map<(b, i, j, d) -> (b, i, d)>
#k = affine_map<(b, i, j, d) -> (b, j, d)>
#s = affine_map<(b, i, j, d) -> (b, i, j)>
#p = affine_map<(b, i, d, j) -> (b, i, j)>
#v = affine_map<(b, i, d, j) -> (b, j, d)>
#o = affine_map<(b, i, d, j) -> (b, i, d)>

func.func @main(%x: tensor<4x8x16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, {}]>},
                %w: tensor<48x16xf32>, %b: tensor<16xf32>,
                %wq: tensor<16x16xf32>, %wk: tensor<16x16xf32>) -> tensor<4x8x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  // Trigram embedding: the sequence shifted by one either way, zero-padded,
  // next to itself along the hidden dimension.
  %next = tensor.extract_slice %x[%c0, %c1, %c0] [4, 7, 16] [%c1, %c1, %c1]
      : tensor<4x8x16xf32> to tensor<4x7x16xf32>
  %next_padded = tensor.pad %next low[%c0, %c0, %c0] high[%c0, %c1, %c0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %zero : f32
  } : tensor<4x7x16xf32> to tensor<4x8x16xf32>
  %prev = tensor.extract_slice %x[%c0, %c0, %c0] [4, 7, 16] [1, 1, 1]
      : tensor<4x8x16xf32> to tensor<4x7x16xf32>
  %prev_padded = tensor.pad %prev low[%c0, %c1, %c0] high[%c0, %c0, %c0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %zero : f32
  } : tensor<4x7x16xf32> to tensor<4x8x16xf32>
  %empty48 = tensor.empty() : tensor<4x8x48xf32>
  %t0 = tensor.insert_slice %next_padded into %empty48[%c0, %c0, %c0] [4, 8, 16] [1, 1, 1]
      : tensor<4x8x16xf32> into tensor<4x8x48xf32>
  %t1 = tensor.insert_slice %x into %t0[%c0, %c0, %c16] [4, 8, 16] [%c1, %c1, %c1]
      : tensor<4x8x16xf32> into tensor<4x8x48xf32>
  %t2 = tensor.insert_slice %prev_padded into %t1[%c0, %c0, %c32] [4, 8, 16] [1, 1, 1]
      : tensor<4x8x16xf32> into tensor<4x8x48xf32>
  %flat = tensor.collapse_shape %t2 [[0, 1], [2]] : tensor<4x8x48xf32> into tensor<32x48xf32>
  %empty2 = tensor.empty() : tensor<32x16xf32>
  %fill2 = linalg.fill ins(%zero : f32) outs(%empty2 : tensor<32x16xf32>) -> tensor<32x16xf32>
  %emb = linalg.matmul ins(%flat, %w : tensor<32x48xf32>, tensor<48x16xf32>)
                       outs(%fill2 : tensor<32x16xf32>) -> tensor<32x16xf32>
  %emb3 = tensor.expand_shape %emb [[0, 1], [2]] output_shape [%c4, %c8, %c16]
      : tensor<32x16xf32> into tensor<4x8x16xf32>
  %empty3 = tensor.empty() : tensor<4x8x16xf32>
  %h = linalg.generic {indexing_maps = [#id, #bias, #id],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%emb3, %b : tensor<4x8x16xf32>, tensor<16xf32>) outs(%empty3 : tensor<4x8x16xf32>) {
  ^bb0(%e: f32, %bb: f32, %out: f32):
    %sum = arith.addf %e, %bb : f32
    linalg.yield %sum : f32
  } -> tensor<4x8x16xf32>
  // Attention: queries and keys of the flattened tokens, scores squashed by
  // tanh, values are the embeddings themselves.
  %hflat = tensor.collapse_shape %h [[0, 1], [2]] : tensor<4x8x16xf32> into tensor<32x16xf32>
  %q2 = linalg.matmul ins(%hflat, %wq : tensor<32x16xf32>, tensor<16x16xf32>)
                      outs(%fill2 : tensor<32x16xf32>) -> tensor<32x16xf32>
  %k2 = linalg.matmul ins(%hflat, %wk : tensor<32x16xf32>, tensor<16x16xf32>)
                      outs(%fill2 : tensor<32x16xf32>) -> tensor<32x16xf32>
  %q = tensor.expand_shape %q2 [[0, 1], [2]] output_shape [%c4, %c8, 16]
      : tensor<32x16xf32> into tensor<4x8x16xf32>
  %k = tensor.expand_shape %k2 [[0, 1], [2]] output_shape [4, %c8, %c16]
      : tensor<32x16xf32> into tensor<4x8x16xf32>
  %empty_s = tensor.empty() : tensor<4x8x8xf32>
  %fill_s = linalg.fill ins(%zero : f32) outs(%empty_s : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %scores = linalg.generic {indexing_maps = [#q, #k, #s],
                            iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<4x8x16xf32>, tensor<4x8x16xf32>) outs(%fill_s : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8x8xf32>
  %probs = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>,
                                            affine_map<(b, i, j) -> (b, i, j)>],
                           iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%scores : tensor<4x8x8xf32>) outs(%empty_s : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8x8xf32>
  %fill_o = linalg.fill ins(%zero : f32) outs(%empty3 : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %attn = linalg.generic {indexing_maps = [#p, #v, #o],
                          iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%probs, %h : tensor<4x8x8xf32>, tensor<4x8x16xf32>) outs(%fill_o : tensor<4x8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8x16xf32>
  // Residual, through a slice and an insert at SSA offsets.
  %res = linalg.generic {indexing_maps = [#id, #id, #id],
                         iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%attn, %x : tensor<4x8x16xf32>, tensor<4x8x16xf32>) outs(%empty3 : tensor<4x8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8x16xf32>
  %head = tensor.extract_slice %res[%c0, %c0, %c0] [4, 8, 8] [%c1, %c1, %c1]
      : tensor<4x8x16xf32> to tensor<4x8x8xf32>
  %out = tensor.insert_slice %head into %res[%c0, %c0, %c8] [4, 8, 8] [%c1, %c1, %c1]
      : tensor<4x8x8xf32> into tensor<4x8x16xf32>
  return %out : tensor<4x8x16xf32>
}
