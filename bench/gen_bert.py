#!/usr/bin/env python3
"""Generates a BERT-style encoder in linalg on tensors, Megatron-annotated.

Usage: gen_bert.py [--layers 24] [--batch 8] [--seq 128] [--hidden 768]
                   [--heads 12] [--ffn 3072] [--mesh DATAxMODEL]
                   [--input-only]

Each layer is written as torch-mlir lowers it before fusion: one
linalg.generic per elementwise op, matmuls with a zero-filled init, bias
adds, the heads split out with tensor.expand_shape and linalg.transpose,
contractions over [batch, head, ...] for the scores and the context, a
scale and an additive mask, a softmax of reductions and elementwise ops, a
residual add and a layer norm after attention and after the MLP (GELU, tanh
form). Weights carry Megatron shardings (QKV and the first MLP weight split
by columns over "model", the output projections by rows), the input is split
over "data" (alone with --input-only). The 24-layer BERT-base default is
about 10,000 operations.
"""
import argparse


class Writer:
    def __init__(self):
        self.lines, self.count = [], 0

    def fresh(self, stem):
        self.count += 1
        return "%%%s%d" % (stem, self.count)

    def emit(self, line):
        self.lines.append("  " + line)


def ttype(shape):
    return "tensor<%sxf32>" % "x".join(str(d) for d in shape)


def affine(rank, dims):
    names = ["d%d" % i for i in range(rank)]
    return "affine_map<(%s) -> (%s)>" % (", ".join(names), ", ".join(names[d] for d in dims))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--layers", type=int, default=24)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--hidden", type=int, default=768)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--ffn", type=int, default=3072)
    p.add_argument("--mesh", default="2x4")
    p.add_argument("--input-only", action="store_true",
                   help="annotate the input alone (for --spmd-auto-shard)")
    a = p.parse_args()
    D, M = (int(v) for v in a.mesh.split("x"))
    B, S, H, NH, F = a.batch, a.seq, a.hidden, a.heads, a.ffn
    DH = H // NH
    T = B * S
    w = Writer()

    def empty(shape):
        e = w.fresh("e")
        w.emit("%s = tensor.empty() : %s" % (e, ttype(shape)))
        return e

    def zeros(shape):
        f = w.fresh("z")
        w.emit("%s = linalg.fill ins(%%zero : f32) outs(%s : %s) -> %s"
               % (f, empty(shape), ttype(shape), ttype(shape)))
        return f

    def generic(ins, out_shape, body, reduce_last=False, init=None):
        """ins: list of (value, shape, dims of the loop space it reads)."""
        rank = len(out_shape) + (1 if reduce_last else 0)
        maps = [affine(rank, dims) for _, _, dims in ins]
        out_dims = list(range(len(out_shape)))
        maps.append(affine(rank, out_dims))
        iters = ['"parallel"'] * len(out_shape) + (['"reduction"'] if reduce_last else [])
        out = init if init is not None else empty(out_shape)
        r = w.fresh("g")
        args = ", ".join("%%a%d: f32" % i for i in range(len(ins)))
        w.emit("%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} ins(%s : %s) "
               "outs(%s : %s) {" % (r, ", ".join(maps), ", ".join(iters),
                                   ", ".join(v for v, _, _ in ins),
                                   ", ".join(ttype(s) for _, s, _ in ins), out, ttype(out_shape)))
        w.emit("^bb0(%s, %%acc: f32):" % args)
        result = body(w)
        w.emit("  linalg.yield %s : f32" % result)
        w.emit("} -> %s" % ttype(out_shape))
        return r

    def scalar_op(op, lhs, rhs):
        v = w.fresh("s")
        w.emit("  %s = arith.%s %s, %s : f32" % (v, op, lhs, rhs))
        return v

    def unary(op, x):
        v = w.fresh("s")
        w.emit("  %s = %s %s : f32" % (v, op, x))
        return v

    def matmul(x, xs, weight, out_in):
        """x @ weight^T, the weight stored [out, in] as in PyTorch."""
        ws = [out_in[1], out_in[0]]
        wt = w.fresh("wt")
        w.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [1, 0]"
               % (wt, weight, ttype(out_in), empty(ws), ttype(ws)))
        shape = [xs[0], ws[1]]
        r = w.fresh("mm")
        w.emit("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
               % (r, x, wt, ttype(xs), ttype(ws), zeros(shape), ttype(shape), ttype(shape)))
        return r

    def ew(op, operands, shape):
        """One elementwise generic per op; operands are (value, dims) pairs,
        or scalars (names of f32 constants)."""
        ins = [(v, [shape[d] for d in dims], dims) for v, dims in
               (o for o in operands if isinstance(o, tuple))]
        names, k = [], 0
        for o in operands:
            if isinstance(o, tuple):
                names.append("%%a%d" % k)
                k += 1
            else:
                names.append(o)
        if len(names) == 1:
            return generic(ins, shape, lambda w: unary(op, names[0]))
        return generic(ins, shape, lambda w: scalar_op(op, names[0], names[1]))

    def bias_add(x, shape, b):
        wide = w.fresh("bb")
        w.emit("%s = linalg.broadcast ins(%s : %s) outs(%s : %s) dimensions = [0]"
               % (wide, b, ttype([shape[1]]), empty(shape), ttype(shape)))
        return ew("addf", [(x, [0, 1]), (wide, [0, 1])], shape)

    def add(x, y, shape):
        dims = list(range(len(shape)))
        return generic([(x, shape, dims), (y, shape, dims)], shape,
                       lambda w: scalar_op("addf", "%a0", "%a1"))

    def row_reduce(x, shape, combine, init_value):
        out = w.fresh("ri")
        w.emit("%s = linalg.fill ins(%s : f32) outs(%s : %s) -> %s"
               % (out, init_value, empty(shape[:-1]), ttype(shape[:-1]), ttype(shape[:-1])))
        dims = list(range(len(shape)))
        return generic([(x, shape, dims)], shape[:-1],
                       lambda w: scalar_op(combine, "%a0", "%acc"), reduce_last=True, init=out)

    def layer_norm(x, gamma, beta):
        shape, full, row, col = [T, H], [0, 1], [0], [1]
        mean = ew("mulf", [(row_reduce(x, shape, "addf", "%zero"), row), "%invh"], [T])
        centered = ew("subf", [(x, full), (mean, row)], shape)
        sq = ew("mulf", [(centered, full), (centered, full)], shape)
        var = ew("mulf", [(row_reduce(sq, shape, "addf", "%zero"), row), "%invh"], [T])
        inv = ew("math.rsqrt", [(ew("addf", [(var, row), "%eps"], [T]), row)], [T])
        normed = ew("mulf", [(centered, full), (inv, row)], shape)
        return ew("addf", [(ew("mulf", [(normed, full), (gamma, col)], shape), full),
                           (beta, col)], shape)

    def heads(x):
        """[T, H] -> [B, NH, S, DH]"""
        e = w.fresh("x4")
        w.emit("%s = tensor.expand_shape %s [[0, 1], [2, 3]] output_shape [%d, %d, %d, %d] : "
               "%s into %s" % (e, x, B, S, NH, DH, ttype([T, H]), ttype([B, S, NH, DH])))
        t = w.fresh("tr")
        w.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [0, 2, 1, 3]"
               % (t, e, ttype([B, S, NH, DH]), empty([B, NH, S, DH]), ttype([B, NH, S, DH])))
        return t

    def merge_heads(x):
        """[B, NH, S, DH] -> [T, H]"""
        t = w.fresh("tr")
        w.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [0, 2, 1, 3]"
               % (t, x, ttype([B, NH, S, DH]), empty([B, S, NH, DH]), ttype([B, S, NH, DH])))
        c = w.fresh("m")
        w.emit("%s = tensor.collapse_shape %s [[0, 1], [2, 3]] : %s into %s"
               % (c, t, ttype([B, S, NH, DH]), ttype([T, H])))
        return c

    def contract(x, xs, xdims, y, ys, ydims, shape):
        """out[b, h, i, j] = sum_k x[...] * y[...] over loops (b, h, i, j, k)."""
        return generic([(x, xs, xdims), (y, ys, ydims)], shape,
                       lambda w: scalar_op("addf", "%acc", scalar_op("mulf", "%a0", "%a1")),
                       reduce_last=True, init=zeros(shape))

    args, weights = [], []

    def arg(name, shape, spec=None):
        if a.input_only and name != "x":
            spec = None
        ann = ' {spmd.sharding = #spmd.sharding<@mesh, %s>}' % spec if spec else ""
        args.append("%%%s: %s%s" % (name, ttype(shape), ann))
        return "%" + name

    x = arg("x", [T, H], '[{"data"}, {}]')
    mask = arg("mask", [B, S])
    # Stored [out, in]: the Megatron column split (of the output features)
    # is the first dimension, the row split the second.
    col, row = '[{"model"}, {}]', '[{}, {"model"}]'
    for i in range(a.layers):
        weights.append({
            "wq": arg("wq%d" % i, [H, H], col), "wk": arg("wk%d" % i, [H, H], col),
            "wv": arg("wv%d" % i, [H, H], col), "wo": arg("wo%d" % i, [H, H], row),
            "bq": arg("bq%d" % i, [H]), "bk": arg("bk%d" % i, [H]), "bv": arg("bv%d" % i, [H]),
            "bo": arg("bo%d" % i, [H]), "g1": arg("g1_%d" % i, [H]), "b1": arg("b1_%d" % i, [H]),
            "w1": arg("w1_%d" % i, [F, H], col), "c1": arg("c1_%d" % i, [F]),
            "w2": arg("w2_%d" % i, [H, F], row), "c2": arg("c2_%d" % i, [H]),
            "g2": arg("g2_%d" % i, [H]), "b2": arg("b2_%d" % i, [H])})

    w.emit("%zero = arith.constant 0.0 : f32")
    w.emit("%ninf = arith.constant -3.0e38 : f32")
    w.emit("%%invh = arith.constant %e : f32" % (1.0 / H))
    w.emit("%eps = arith.constant 1.0e-5 : f32")
    w.emit("%%scale = arith.constant %e : f32" % (DH ** -0.5))
    w.emit("%half = arith.constant 0.5 : f32")
    w.emit("%big = arith.constant -10000.0 : f32")
    w.emit("%one = arith.constant 1.0 : f32")
    w.emit("%c0 = arith.constant 0.7978845608 : f32")
    w.emit("%c1 = arith.constant 0.044715 : f32")
    bh = [B, NH, S, DH]
    for lw in weights:
        q = heads(bias_add(matmul(x, [T, H], lw["wq"], [H, H]), [T, H], lw["bq"]))
        k = heads(bias_add(matmul(x, [T, H], lw["wk"], [H, H]), [T, H], lw["bk"]))
        v = heads(bias_add(matmul(x, [T, H], lw["wv"], [H, H]), [T, H], lw["bv"]))
        ss, full, rows = [B, NH, S, S], [0, 1, 2, 3], [0, 1, 2]
        scores = contract(q, bh, [0, 1, 2, 4], k, bh, [0, 1, 3, 4], ss)
        scaled = ew("mulf", [(scores, full), "%scale"], ss)
        bias = ew("mulf", [(ew("subf", ["%one", (mask, [0, 1])], [B, S]), [0, 1]), "%big"],
                  [B, S])
        masked = ew("addf", [(scaled, full), (bias, [0, 3])], ss)
        peak = row_reduce(masked, ss, "maximumf", "%ninf")
        exps = ew("math.exp", [(ew("subf", [(masked, full), (peak, rows)], ss), full)], ss)
        total = row_reduce(exps, ss, "addf", "%zero")
        probs = ew("divf", [(exps, full), (total, rows)], ss)
        ctx = merge_heads(contract(probs, ss, [0, 1, 2, 4], v, bh, [0, 1, 4, 3], bh))
        attn = bias_add(matmul(ctx, [T, H], lw["wo"], [H, H]), [T, H], lw["bo"])
        x = layer_norm(add(attn, x, [T, H]), lw["g1"], lw["b1"])
        h = bias_add(matmul(x, [T, H], lw["w1"], [F, H]), [T, F], lw["c1"])
        hs, f2 = [T, F], [0, 1]
        cube = ew("mulf", [(ew("mulf", [(h, f2), (h, f2)], hs), f2), (h, f2)], hs)
        inner = ew("addf", [(h, f2), (ew("mulf", [(cube, f2), "%c1"], hs), f2)], hs)
        t = ew("math.tanh", [(ew("mulf", [(inner, f2), "%c0"], hs), f2)], hs)
        g = ew("mulf", [(ew("mulf", [(h, f2), "%half"], hs), f2),
                        (ew("addf", [(t, f2), "%one"], hs), f2)], hs)
        y = bias_add(matmul(g, [T, F], lw["w2"], [H, F]), [T, H], lw["c2"])
        x = layer_norm(add(y, x, [T, H]), lw["g2"], lw["b2"])

    print('spmd.mesh @mesh = <["data"=%d, "model"=%d]>' % (D, M))
    print("func.func @bert(%s) -> %s {" % (", ".join(args), ttype([T, H])))
    print("\n".join(w.lines))
    print("  return %s : %s" % (x, ttype([T, H])))
    print("}")


if __name__ == "__main__":
    main()
