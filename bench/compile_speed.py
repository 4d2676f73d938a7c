#!/usr/bin/env python3
"""Compile speed against upstream MLIR, on the Megatron chain.

Usage: compile_speed.py SPMD_OPT [MLIR_OPT] [--phase propagate|partition]
                        [--layers 500,1000,2000,5000] [--repeat 3]
       compile_speed.py SPMD_OPT [MLIR_OPT] --pass-time [--layers 5000]
       compile_speed.py SPMD_OPT --devices [--layers 2000]
       compile_speed.py SPMD_OPT --bert
       compile_speed.py SPMD_OPT --against OTHER_SPMD_OPT [--layers 5000]
                        [--repeat 9]

--pass-time: the time of the whole pipeline's passes, from --mlir-timing on
both sides: everything but parsing and printing (the same MLIR code for both
tools; the verifier is left out too, -verify-each=false on both). Ours is
`spmd-opt --spmd-pipeline` (import, propagate, partition, optimize
collectives, and the pass manager's own time), upstream's
`mlir-opt --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition))'`,
the two run alternately --repeat times. Prints the medians, the median of
the pairs' ratios ours/upstream, and the CPU; exits 1 above 0.5.

--devices: the pass time of `spmd-opt --spmd-pipeline` (every Spmd* pass)
on the same chain (batch 512) over meshes of 8 to 131,072 devices (2x4,
64x32, 128x128, 512x256), and the whole process's wall time. Prints each
mesh's ratios to the 2x4 mesh; exits 1 when a pass-time ratio is above 1.1.

--bert: whole-process wall time of `spmd-opt --spmd-pipeline` on
gen_bert.py's BERT-base encoder at 24 layers and at 32 layers (about
10,000 ops). Exits 1 if either takes 1 s or more.

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
import re
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
            path = generate(tmp, "chain%d.mlir" % n,
                            [os.path.join(HERE, "gen_megatron_chain.py"), str(n), "spmd"])
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


def timing_rows(cmd):
    """The (name, seconds) rows of --mlir-timing for one run of `cmd`."""
    out = subprocess.run(cmd + ["--mlir-timing", "-verify-each=false", "-o", os.devnull],
                         check=True, capture_output=True, text=True).stderr
    rows = []
    for line in out.splitlines():
        row = re.match(r"^\s*([\d.]+) \(\s*[\d.]+%\)\s+(.*)$", line)
        if row:
            rows.append((row.group(2).strip(), float(row.group(1))))
    return rows


def pass_rows(cmd, names):
    """The summed --mlir-timing rows `names` of one run of `cmd` (a row
    counts when its name is in `names`, or starts with a prefix ending in
    '*')."""
    return sum(seconds for name, seconds in timing_rows(cmd)
               if any(name == n or (n.endswith("*") and name.startswith(n[:-1]))
                      for n in names))


def pipeline_seconds(cmd):
    """The --mlir-timing total of one run of `cmd` without parsing and
    printing: every pass, and the pass manager's own time."""
    rows = dict(timing_rows(cmd))
    return rows["Total"] - rows.get("Parser", 0) - rows.get("Output", 0)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def pass_seconds(cmd, names, repeat):
    """Median over `repeat` runs of pass_rows."""
    return statistics.median(pass_rows(cmd, names) for _ in range(repeat))


def generate(tmp, name, args):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        subprocess.run([sys.executable] + args, check=True, stdout=f)
    return path


def pass_time(a, sizes):
    ok = True
    print("CPU: %s, %d cores" % (cpu_name(), os.cpu_count()))
    print("%8s %12s %14s %8s" % ("layers", "ours s", "upstream s", "ratio"))
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            chain = os.path.join(HERE, "gen_megatron_chain.py")
            ours_in = generate(tmp, "c%d.spmd.mlir" % n, [chain, str(n), "spmd"])
            theirs_in = generate(tmp, "c%d.shard.mlir" % n, [chain, str(n), "shard"])
            # The two tools run alternately, so that a slow spell of the
            # machine falls on both; the ratio is the median of the pairs'.
            pairs = []
            for _ in range(a.repeat):
                pairs.append((
                    pipeline_seconds([a.spmd_opt, "--spmd-pipeline", ours_in]),
                    pipeline_seconds([a.mlir_opt, "--pass-pipeline=builtin.module(func.func("
                                      "sharding-propagation,shard-partition))", theirs_in])))
            ours = statistics.median(p[0] for p in pairs)
            theirs = statistics.median(p[1] for p in pairs)
            ratio = statistics.median(p[0] / p[1] for p in pairs)
            print("%8d %12.3f %14.3f %8.3f" % (n, ours, theirs, ratio))
            ok &= ratio <= 0.5
    return 0 if ok else 1


def devices(a, sizes):
    ok = True
    meshes = ["2x4", "64x32", "128x128", "512x256"]
    print("%8s %10s %10s %12s %8s %12s %8s" % ("layers", "mesh", "devices", "pass s", "ratio",
                                              "process s", "ratio"))
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            base = None
            for mesh in meshes:
                path = generate(tmp, "c%d.%s.mlir" % (n, mesh),
                                [os.path.join(HERE, "gen_megatron_chain.py"), str(n), "spmd",
                                 "--batch", "512", "--mesh", mesh])
                t = pass_seconds([a.spmd_opt, "--spmd-pipeline", path], ["Spmd*"], a.repeat)
                wall = timed([a.spmd_opt, "--spmd-pipeline", path, "-o", os.devnull], a.repeat)
                base = base or (t, wall)
                d, m = (int(v) for v in mesh.split("x"))
                print("%8d %10s %10d %12.3f %8.3f %12.3f %8.3f"
                      % (n, mesh, d * m, t, t / base[0], wall, wall / base[1]))
                ok &= t / base[0] <= 1.1
    return 0 if ok else 1


def bert(a):
    ok = True
    print("%8s %8s %12s" % ("layers", "ops", "wall s"))
    with tempfile.TemporaryDirectory() as tmp:
        for layers in (24, 32):
            path = generate(tmp, "bert%d.mlir" % layers,
                            [os.path.join(HERE, "gen_bert.py"), "--layers", str(layers)])
            generic = subprocess.run([a.spmd_opt, path, "--mlir-print-op-generic"], check=True,
                                     capture_output=True, text=True).stdout
            ops = sum(1 for line in generic.splitlines()
                      if line.lstrip().startswith('"') or '= "' in line)
            t = timed([a.spmd_opt, "--spmd-pipeline", path, "-o", os.devnull], a.repeat)
            print("%8d %8d %12.3f" % (layers, ops, t))
            ok &= t < 1.0
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("spmd_opt")
    p.add_argument("mlir_opt", nargs="?", default="/usr/lib/llvm-22/bin/mlir-opt")
    p.add_argument("--phase", choices=["propagate", "partition"], default="propagate")
    p.add_argument("--layers")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--against", help="another spmd-opt to compare with")
    p.add_argument("--pass-time", action="store_true", help="pass time against upstream")
    p.add_argument("--devices", action="store_true", help="pass time over mesh sizes")
    p.add_argument("--bert", action="store_true", help="the BERT-base encoder end to end")
    a = p.parse_args()
    if a.pass_time or a.devices:
        default = "5000" if a.pass_time else "2000"
        sizes = [int(s) for s in (a.layers or default).split(",")]
        return pass_time(a, sizes) if a.pass_time else devices(a, sizes)
    if a.bert:
        return bert(a)
    sizes = [int(s) for s in (a.layers or "500,1000,2000,5000").split(",")]
    if a.against:
        return against(a, sizes)
    rows, ok = [], True
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            files = {dialect: generate(tmp, "chain%d.%s.mlir" % (n, dialect),
                                       [os.path.join(HERE, "gen_megatron_chain.py"), str(n),
                                        dialect])
                     for dialect in ("spmd", "shard")}
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
