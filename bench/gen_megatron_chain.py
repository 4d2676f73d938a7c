#!/usr/bin/env python3
"""Generates a chain of Megatron-style MLP layers for the propagation benchmark.

Usage: gen_megatron_chain.py LAYERS {spmd|shard} [--batch B --hidden H --ffn F]
                             [--mesh DATAxMODEL]

Each layer: h = x @ w1 (w1 column-split over "model"), relu, x = h @ w2
(w2 row-split over "model"); the input batch is split over "data". The
`spmd` form annotates function arguments with #spmd.sharding; the `shard`
form is the equivalent upstream MLIR shard-dialect program (shard.grid,
shard.sharding, shard.shard on the arguments).
"""
import argparse


def main():
    p = argparse.ArgumentParser()
    p.add_argument("layers", type=int)
    p.add_argument("dialect", choices=["spmd", "shard"])
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--ffn", type=int, default=1024)
    p.add_argument("--mesh", default="2x4", help="the sizes of the data and model axes")
    a = p.parse_args()
    B, H, F, N = a.batch, a.hidden, a.ffn, a.layers
    D, M = (int(v) for v in a.mesh.split("x"))
    x_t, h_t = "tensor<%dx%dxf32>" % (B, H), "tensor<%dx%dxf32>" % (B, F)
    w1_t, w2_t = "tensor<%dx%dxf32>" % (H, F), "tensor<%dx%dxf32>" % (F, H)
    spmd = a.dialect == "spmd"

    def ann(spec):
        return (' {spmd.sharding = #spmd.sharding<@mesh, %s>}' % spec) if spmd else ""

    out = []
    if spmd:
        out.append('spmd.mesh @mesh = <["data"=%d, "model"=%d]>' % (D, M))
    else:
        out.append("shard.grid @mesh(shape = %dx%d)" % (D, M))
    args = ["%%x: %s%s" % (x_t, ann('[{"data"}, {}]'))]
    for i in range(N):
        args.append("%%w1_%d: %s%s" % (i, w1_t, ann('[{}, {"model"}]')))
        args.append("%%w2_%d: %s%s" % (i, w2_t, ann('[{"model"}, {}]')))
    out.append("func.func @chain(%s) -> %s {" % (", ".join(args), x_t))
    out.append("  %zero = arith.constant 0.0 : f32")
    x, w1s, w2s = "%x", ["%%w1_%d" % i for i in range(N)], ["%%w2_%d" % i for i in range(N)]
    if not spmd:
        out.append('  %sx = shard.sharding @mesh split_axes = [[0]] : !shard.sharding')
        out.append('  %sw1 = shard.sharding @mesh split_axes = [[], [1]] : !shard.sharding')
        out.append('  %sw2 = shard.sharding @mesh split_axes = [[1]] : !shard.sharding')
        out.append("  %%xs = shard.shard %%x to %%sx : %s" % x_t)
        x = "%xs"
        for i in range(N):
            out.append("  %%w1s_%d = shard.shard %%w1_%d to %%sw1 : %s" % (i, i, w1_t))
            out.append("  %%w2s_%d = shard.shard %%w2_%d to %%sw2 : %s" % (i, i, w2_t))
        w1s = ["%%w1s_%d" % i for i in range(N)]
        w2s = ["%%w2s_%d" % i for i in range(N)]
    relu = ("{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], "
            "iterator_types = [\"parallel\", \"parallel\"]}")
    for i in range(N):
        out.append("  %%e1_%d = tensor.empty() : %s" % (i, h_t))
        out.append("  %%f1_%d = linalg.fill ins(%%zero : f32) outs(%%e1_%d : %s) -> %s" % (i, i, h_t, h_t))
        out.append("  %%h_%d = linalg.matmul ins(%s, %s : %s, %s) outs(%%f1_%d : %s) -> %s"
                   % (i, x, w1s[i], x_t, w1_t, i, h_t, h_t))
        out.append("  %%r_%d = linalg.generic %s ins(%%h_%d : %s) outs(%%e1_%d : %s) {" % (i, relu, i, h_t, i, h_t))
        out.append("  ^bb0(%a: f32, %o: f32):")
        out.append("    %m = arith.maximumf %a, %zero : f32")
        out.append("    linalg.yield %m : f32")
        out.append("  } -> %s" % h_t)
        out.append("  %%e2_%d = tensor.empty() : %s" % (i, x_t))
        out.append("  %%f2_%d = linalg.fill ins(%%zero : f32) outs(%%e2_%d : %s) -> %s" % (i, i, x_t, x_t))
        out.append("  %%y_%d = linalg.matmul ins(%%r_%d, %s : %s, %s) outs(%%f2_%d : %s) -> %s"
                   % (i, i, w2s[i], h_t, w2_t, i, x_t, x_t))
        x = "%%y_%d" % i
    out.append("  return %s : %s" % (x, x_t))
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
