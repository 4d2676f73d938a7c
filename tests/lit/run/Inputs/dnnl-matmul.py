#!/usr/bin/env python3
"""Writes contractions whose B is a constant (run/dnnl-matmul.test), each
of at least 2^20 multiply-adds, so that oneDNN's matmul takes them where it
has brgemm code. Weights are resource blobs of seeded values (NaN and
infinities in @stored's)."""
import random
import struct

random.seed(11)


def blob(count, special=False):
    values = []
    for i in range(count):
        v = round(random.uniform(-1, 1), 3)
        if special and i % 97 == 5:
            v = float("nan")
        elif special and i % 89 == 7:
            v = float("inf") if i % 2 else float("-inf")
        values.append(v)
    data = b"".join(struct.pack("<f", v) for v in values)
    return "0x04000000" + data.hex().upper()


def generic(maps, ins, outs, result):
    return ("linalg.generic {indexing_maps = [" + maps + "], iterator_types = "
            "[\"parallel\", \"parallel\", \"reduction\"]} ins(" + ins +
            ") outs(" + outs + ") {\n"
            "  ^bb0(%p: f32, %q: f32, %o: f32):\n"
            "    %m = arith.mulf %p, %q : f32\n"
            "    %s = arith.addf %o, %m : f32\n"
            "    linalg.yield %s : f32\n"
            "  } -> " + result)


def zeros(shape):
    return ("  %z = arith.constant 0.0 : f32\n"
            "  %e = tensor.empty() : tensor<" + shape + "xf32>\n"
            "  %f = linalg.fill ins(%z : f32) outs(%e : tensor<" + shape +
            "xf32>) -> tensor<" + shape + "xf32>\n")


print("""#a = affine_map<(m, n, k) -> (m, k)>
#ta = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (k, n)>
#tb = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
#tc = affine_map<(m, n, k) -> (n, m)>

// A plain matmul, zero init.
func.func @plain(%x: tensor<100x300xf32>) -> tensor<100x200xf32> {
  %w = arith.constant dense_resource<plain_w> : tensor<300x200xf32>
""" + zeros("100x200") + """  %r = linalg.matmul ins(%x, %w : tensor<100x300xf32>, tensor<300x200xf32>) outs(%f : tensor<100x200xf32>) -> tensor<100x200xf32>
  return %r : tensor<100x200xf32>
}

// Accumulating into an argument, the weights read transposed (x @ W^T, as
// torch-mlir writes a linear layer).
func.func @accumulate(%x: tensor<80x256xf32>, %acc: tensor<80x130xf32>) -> tensor<80x130xf32> {
  %w = arith.constant dense_resource<accumulate_w> : tensor<130x256xf32>
  %r = """ + generic("#a, #tb, #c", "%x, %w : tensor<80x256xf32>, tensor<130x256xf32>",
                     "%acc : tensor<80x130xf32>", "tensor<80x130xf32>") + """
  return %r : tensor<80x130xf32>
}

// A read transposed, B from an immutable global holding NaN and infinities.
ml_program.global private @stored_w(dense_resource<stored_w> : tensor<512x64xf32>) : tensor<512x64xf32>
func.func @stored(%xt: tensor<512x40xf32>) -> tensor<40x64xf32> {
  %w = ml_program.global_load_const @stored_w : tensor<512x64xf32>
""" + zeros("40x64") + """  %r = """ + generic("#ta, #b, #c", "%xt, %w : tensor<512x40xf32>, tensor<512x64xf32>",
                     "%f : tensor<40x64xf32>", "tensor<40x64xf32>") + """
  return %r : tensor<40x64xf32>
}

// One row (on two threads, the path's GEMM splitting the columns).
func.func @row(%x: tensor<1x2048xf32>) -> tensor<1x1024xf32> {
  %w = arith.constant dense_resource<row_w> : tensor<2048x1024xf32>
""" + zeros("1x1024") + """  %r = linalg.matmul ins(%x, %w : tensor<1x2048xf32>, tensor<2048x1024xf32>) outs(%f : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  return %r : tensor<1x1024xf32>
}

// A linear layer as torch-mlir writes it: the resource blob's weights
// transposed by a copy, which is fused into the matmul.
func.func @torch_linear(%x: tensor<64x512xf32>) -> tensor<64x256xf32> {
  %w = arith.constant dense_resource<torch_linear_w> : tensor<256x512xf32>
  %et = tensor.empty() : tensor<512x256xf32>
  %wt = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<256x512xf32>) outs(%et : tensor<512x256xf32>) {
  ^bb0(%p: f32, %o: f32):
    linalg.yield %p : f32
  } -> tensor<512x256xf32>
""" + zeros("64x256") + """  %r = linalg.matmul ins(%x, %wt : tensor<64x512xf32>, tensor<512x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// The result written transposed: left to the path's GEMM.
func.func @written_transposed(%x: tensor<64x128xf32>) -> tensor<150x64xf32> {
  %w = arith.constant dense_resource<written_transposed_w> : tensor<128x150xf32>
""" + zeros("150x64") + """  %r = """ + generic("#a, #b, #tc", "%x, %w : tensor<64x128xf32>, tensor<128x150xf32>",
                     "%f : tensor<150x64xf32>", "tensor<150x64xf32>") + """
  return %r : tensor<150x64xf32>
}
""")
print("{-#\n  dialect_resources: {\n    builtin: {")
blobs = [("plain_w", 300 * 200, False), ("accumulate_w", 130 * 256, False),
         ("stored_w", 512 * 64, True), ("row_w", 2048 * 1024, False),
         ("torch_linear_w", 256 * 512, False),
         ("written_transposed_w", 128 * 150, False)]
print(",\n".join('      %s: "%s"' % (name, blob(n, s)) for name, n, s in blobs))
print("    }\n  }\n#-}")
