#!/usr/bin/env python3
"""Auto-sharding against hand-written plans on the optimality patterns.

Usage: auto_shard_patterns.py SPMD_OPT SPMD_RUN [--workdir DIR] [--no-run]

For the Megatron MLP, attention and FSDP patterns of
tests/lit/partition/optimality.mlir (2x4 mesh, data=2, model=4), with only
the input annotated:
  - unlimited budget: the auto plan's modelled cost is at most that of
    every hand-written plan (each evaluated under the same model: its
    shardings propagated, then every value pinned);
  - a budget of half the replicated parameters less than the peak of the
    best plan that keeps them replicated: the plan fits, shards a weight,
    and costs at most 1.10x the best hand-written plan that fits.
Every auto plan also runs under `spmd-run --check`. Prints a table; exits 1
when a criterion fails.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

MESH = 'spmd.mesh @mesh = <["data"=2, "model"=4]>\n'

MLP = """
func.func @main(%x: tensor<64x1024xf32> {X}, %w1: tensor<1024x4096xf32> {W1},
                %w2: tensor<4096x1024xf32> {W2}) -> (tensor<64x1024xf32> {Y}) {
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
"""

ATTENTION = """
func.func @main(%x: tensor<64x1024xf32> {X}, %wq: tensor<1024x1024xf32> {WQ},
                %wk: tensor<1024x1024xf32> {WK}, %wv: tensor<1024x1024xf32> {WV},
                %wo: tensor<1024x1024xf32> {WO}) -> (tensor<64x1024xf32> {Y}) {
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
"""

FSDP = """
func.func @main(%x: tensor<8192x1024xf32> {X}, %w: tensor<1024x1024xf32> {W})
    -> (tensor<8192x1024xf32> {Y}) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8192x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8192x1024xf32>) -> tensor<8192x1024xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8192x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<8192x1024xf32>) -> tensor<8192x1024xf32>
  return %y : tensor<8192x1024xf32>
}
"""

R = "[{}, {}]"
ROWS = '[{"data"}, {}]'
ROWS_ALL = '[{"data", "model"}, {}]'
COLS = '[{}, {"model"}]'
ROWS_MODEL = '[{"model"}, {}]'

# name -> (program, input, {parameter: bytes}, {plan: {argument: sharding}})
PATTERNS = {
    "megatron_mlp": (MLP, "X", {"W1": 16 << 20, "W2": 16 << 20}, {
        "megatron": {"W1": COLS, "W2": ROWS_MODEL, "Y": ROWS},
        "megatron, sequence-parallel output":
            {"W1": COLS, "W2": ROWS_MODEL, "Y": ROWS_ALL},
        "data parallel": {"W1": R, "W2": R, "Y": ROWS_ALL},
        "fsdp": {"W1": ROWS_ALL, "W2": ROWS_ALL, "Y": ROWS_ALL},
    }),
    "attention": (ATTENTION, "X", {w: 4 << 20 for w in ("WQ", "WK", "WV", "WO")}, {
        "megatron (heads over model)":
            {"WQ": COLS, "WK": COLS, "WV": COLS, "WO": ROWS_MODEL, "Y": ROWS},
        "data parallel": {"WQ": R, "WK": R, "WV": R, "WO": R, "Y": ROWS},
        "fsdp": {"WQ": ROWS_ALL, "WK": ROWS_ALL, "WV": ROWS_ALL,
                 "WO": ROWS_ALL, "Y": ROWS},
    }),
    "fsdp_forward": (FSDP, "X", {"W": 4 << 20}, {
        "fsdp": {"W": ROWS, "Y": ROWS},
        "fsdp over all devices": {"W": ROWS_ALL, "Y": ROWS},
        "data parallel": {"W": R, "Y": ROWS},
        "column split": {"W": COLS, "Y": '[{"data"}, {"model"}]'},
    }),
}

ANNOTATION = "{{spmd.sharding = #spmd.sharding<@mesh, {0}>}}"


def program(body, shardings):
    names = [n for n in ("X", "W1", "W2", "WQ", "WK", "WV", "WO", "W", "Y")]
    text = body
    for n in names:
        text = text.replace("{%s}" % n, ANNOTATION.format(shardings[n])
                            if n in shardings else "")
    return MESH + text


def auto_shard(tool, text, workdir, name, extra, propagate=False):
    path = os.path.join(workdir, name + ".mlir")
    out = os.path.join(workdir, name + ".auto.mlir")
    report = os.path.join(workdir, name + ".json")
    open(path, "w").write(text)
    passes = ["--spmd-propagate"] if propagate else []
    options = "report=%s %s" % (report, extra)
    cmd = [tool, path] + passes + ["--spmd-auto-shard=%s" % options.strip(),
                                   "-o", out]
    subprocess.run(cmd, check=True)
    entry = json.load(open(report))["auto_shard"][0]
    return entry, out


def check_run(tool, path):
    cmd = [tool, path, "--check"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    line = [l for l in out.stdout.splitlines() if l.startswith("check:")]
    return out.returncode == 0 and line and line[0].startswith("check: PASS")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("spmd_opt")
    parser.add_argument("spmd_run")
    parser.add_argument("--workdir")
    parser.add_argument("--no-run", action="store_true")
    args = parser.parse_args()
    workdir = args.workdir or tempfile.mkdtemp()
    os.makedirs(workdir, exist_ok=True)
    failures = []
    rows = []

    def fmt(seconds):
        return "%.2f us" % (seconds * 1e6)

    for name, (body, input_arg, params, plans) in PATTERNS.items():
        given = {input_arg: ROWS}
        hand = {}
        for plan, shardings in plans.items():
            entry, _ = auto_shard(args.spmd_opt, program(body, dict(given, **shardings)),
                                  workdir, name + "." + plan.replace(" ", "_").replace(",", "").replace("(", "").replace(")", ""),
                                  "", propagate=True)
            hand[plan] = (entry["cost"]["total_seconds"],
                          entry["cost"]["peak_memory_bytes"])
        unlimited, path = auto_shard(args.spmd_opt, program(body, given), workdir,
                                     name + ".auto", "")
        cost = unlimited["cost"]["total_seconds"]
        peak = unlimited["cost"]["peak_memory_bytes"]
        best = min(hand.items(), key=lambda kv: kv[1][0])
        ok = cost <= best[1][0] * (1 + 1e-9)
        if not ok:
            failures.append("%s: auto %g above hand %s %g" % (name, cost, best[0], best[1][0]))
        if not args.no_run and not check_run(args.spmd_run, path):
            failures.append("%s: auto plan failed spmd-run --check" % name)
        rows.append((name, "unlimited", fmt(cost), peak, best[0], fmt(best[1][0]),
                     "%.3f" % (cost / best[1][0]), "ok" if ok else "FAIL"))

        # The best plan that keeps the weights replicated, less half of
        # them: that plan no longer fits.
        replicated, _ = auto_shard(args.spmd_opt,
                                   program(body, dict(given, **{w: R for w in params})),
                                   workdir, name + ".replicated", "")
        budget = (replicated["cost"]["peak_memory_bytes"] -
                  sum(params.values()) // 2)
        limited, path = auto_shard(args.spmd_opt, program(body, given), workdir,
                                   name + ".budget", "memory-budget=%d" % budget)
        cost = limited["cost"]["total_seconds"]
        fits = {p: v for p, v in hand.items() if v[1] <= budget}
        sharded = [a for a in limited["arguments"]
                   if a["index"] > 0 and a["sharding"].count('"') > 0]
        ok = limited["cost"]["peak_memory_bytes"] <= budget and sharded
        if fits:
            best = min(fits.items(), key=lambda kv: kv[1][0])
            ok = ok and cost <= best[1][0] * 1.10
            ratio = "%.3f" % (cost / best[1][0])
            best_name, best_cost = best[0], fmt(best[1][0])
        else:
            best_name, best_cost, ratio = "(none fits)", "-", "-"
        if not ok:
            failures.append("%s: budgeted plan %g (peak %d, budget %d, sharded %d)" %
                            (name, cost, limited["cost"]["peak_memory_bytes"], budget,
                             len(sharded)))
        if not args.no_run and not check_run(args.spmd_run, path):
            failures.append("%s: budgeted auto plan failed spmd-run --check" % name)
        rows.append((name, "%d bytes" % budget, fmt(cost),
                     limited["cost"]["peak_memory_bytes"], best_name, best_cost,
                     ratio, "ok" if ok else "FAIL"))

    print("| pattern | budget | auto cost | auto peak bytes | best hand plan | hand cost | auto/hand | |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    for f in failures:
        print("FAIL:", f)
    print("%d passed, %d failed" % (len(rows) - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
