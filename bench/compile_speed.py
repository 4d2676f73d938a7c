#!/usr/bin/env python3
"""Compile speed against upstream MLIR, on the Megatron chain.

Usage: compile_speed.py SPMD_OPT [MLIR_OPT] [--phase propagate|partition]
                        [--layers 500,1000,2000,5000] [--repeat 3]
       compile_speed.py SPMD_OPT --against OTHER_SPMD_OPT [--layers 5000]
                        [--repeat 9]

For each size, generates the chain (gen_megatron_chain.py) in both forms and
times whole processes, side by side in this one run:
  --phase propagate (default)
    ours:     spmd-opt --spmd-propagate chain.spmd.mlir
    upstream: mlir-opt --pass-pipeline='builtin.module(func.func(sharding-propagation))'
              chain.shard.mlir
  --phase partition (inputs propagated first, by each tool, untimed)
    ours:     spmd-opt --spmd-partition --spmd-optimize-collectives chain.spmd.prop.mlir
    upstream: mlir-opt --pass-pipeline='builtin.module(func.func(shard-partition))'
              chain.shard.prop.mlir
Prints the median wall time of each, the ratio ours/upstream (must be <= 1),
and microseconds per layer (flat when time grows linearly). Exits 1 if ours
is slower than upstream at any size or grows super-linearly (per-layer time
at the largest size more than 1.5x that at the smallest).

With --against, compares two builds of spmd-opt instead (before and after a
change): `--spmd-pipeline` on the chain, the two binaries run alternately,
CPU time (user + system) of each process, median of --repeat runs each.
Prints the ratio SPMD_OPT / OTHER_SPMD_OPT per size; exits 1 above 1.05.
"""
import resource
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cpu_seconds(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def against(a, sizes):
    ok = True
    print("%8s %14s %14s %8s" % ("layers", "this cpu s", "other cpu s", "ratio"))
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = os.path.join(tmp, "chain%d.mlir" % n)
            with open(path, "w") as f:
                subprocess.run([sys.executable, os.path.join(HERE, "gen_megatron_chain.py"),
                                str(n), "spmd"], check=True, stdout=f)
            times = {a.spmd_opt: [], a.against: []}
            for _ in range(a.repeat):
                for tool in times:
                    times[tool].append(cpu_seconds(
                        [tool, "--spmd-pipeline", path, "-o", os.devnull]))
            this = statistics.median(times[a.spmd_opt])
            other = statistics.median(times[a.against])
            print("%8d %14.3f %14.3f %8.3f" % (n, this, other, this / other))
            ok &= this / other <= 1.05
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("spmd_opt")
    p.add_argument("mlir_opt", nargs="?", default="/usr/lib/llvm-22/bin/mlir-opt")
    p.add_argument("--phase", choices=["propagate", "partition"], default="propagate")
    p.add_argument("--layers", default="500,1000,2000,5000")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--against", help="another spmd-opt to compare with")
    a = p.parse_args()
    sizes = [int(s) for s in a.layers.split(",")]
    if a.against:
        return against(a, sizes)
    rows, ok = [], True
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            files = {}
            for dialect in ("spmd", "shard"):
                path = os.path.join(tmp, "chain%d.%s.mlir" % (n, dialect))
                with open(path, "w") as f:
                    subprocess.run([sys.executable, os.path.join(HERE, "gen_megatron_chain.py"),
                                    str(n), dialect], check=True, stdout=f)
                files[dialect] = path
            upstream_propagate = "--pass-pipeline=builtin.module(func.func(sharding-propagation))"
            if a.phase == "propagate":
                ours = timed([a.spmd_opt, "--spmd-propagate", files["spmd"], "-o", os.devnull],
                             a.repeat)
                theirs = timed([a.mlir_opt, upstream_propagate, files["shard"], "-o",
                                os.devnull], a.repeat)
            else:
                propagated = {k: v + ".prop.mlir" for k, v in files.items()}
                subprocess.run([a.spmd_opt, "--spmd-propagate", files["spmd"], "-o",
                                propagated["spmd"]], check=True)
                subprocess.run([a.mlir_opt, upstream_propagate, files["shard"], "-o",
                                propagated["shard"]], check=True)
                ours = timed([a.spmd_opt, "--spmd-partition", "--spmd-optimize-collectives",
                              propagated["spmd"], "-o", os.devnull], a.repeat)
                theirs = timed([a.mlir_opt,
                                "--pass-pipeline=builtin.module(func.func(shard-partition))",
                                propagated["shard"], "-o", os.devnull], a.repeat)
            rows.append((n, ours, theirs))
    print("%8s %12s %14s %8s %16s %16s" % ("layers", "spmd-opt s", "upstream s", "ratio",
                                             "ours us/layer", "upstream us/layer"))
    for n, ours, theirs in rows:
        print("%8d %12.3f %14.3f %8.3f %16.1f %16.1f"
              % (n, ours, theirs, ours / theirs, 1e6 * ours / n, 1e6 * theirs / n))
        if ours > theirs:
            ok = False
            print("  slower than upstream at %d layers" % n)
    growth = (rows[-1][1] / rows[-1][0]) / (rows[0][1] / rows[0][0])
    print("per-layer time, largest / smallest size: %.2f (1.0 = linear)" % growth)
    if growth > 1.5:
        ok = False
        print("  time grows faster than linearly")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
