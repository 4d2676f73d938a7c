#!/usr/bin/env python3
"""Times --spmd-auto-shard on BERT-base encoders with only the input annotated.

Usage: auto_shard_speed.py SPMD_OPT [--layers 24,32] [--repeat 3]

For gen_bert.py's encoder (--input-only) at each layer count, times the
whole `spmd-opt --spmd-auto-shard` process without a budget and with half
the replicated parameters as budget (less than the unlimited plan's peak by
that much), next to `spmd-opt --spmd-propagate` on the Megatron-annotated
encoder in the same run (the baseline: propagation from hand-written
shardings). Prints the median seconds, the ratio to the baseline, the
solver's status and the plan's modelled cost; exits 1 when auto-sharding
takes 60 s or more.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd):
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("spmd_opt")
    p.add_argument("--layers", default="24,32")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    work = tempfile.mkdtemp()
    failed = False
    print("| layers | ops | budget | auto-shard s | propagate s | ratio | status | nodes (before sharing) | modelled ms | peak MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for layers in (int(x) for x in a.layers.split(",")):
        auto = os.path.join(work, "auto%d.mlir" % layers)
        hand = os.path.join(work, "hand%d.mlir" % layers)
        gen = [sys.executable, os.path.join(HERE, "gen_bert.py"), "--layers", str(layers)]
        with open(auto, "w") as f:
            subprocess.run(gen + ["--input-only"], check=True, stdout=f)
        with open(hand, "w") as f:
            subprocess.run(gen, check=True, stdout=f)
        # Every op, body ops included (as compile_speed.py counts them).
        generic = subprocess.run([a.spmd_opt, hand, "--mlir-print-op-generic"], check=True,
                                 capture_output=True, text=True).stdout
        ops = sum(1 for line in generic.splitlines()
                  if line.lstrip().startswith('"') or '= "' in line)
        report = os.path.join(work, "report.json")
        budget = None
        for label in ("unlimited", "half the parameters"):
            opts = "report=" + report
            if budget:
                opts += " memory-budget=%d" % budget
            times, base = [], []
            for _ in range(a.repeat):
                times.append(timed([a.spmd_opt, auto, "--spmd-auto-shard=" + opts, "-o", os.devnull]))
                base.append(timed([a.spmd_opt, hand, "--spmd-propagate", "-o", os.devnull]))
            entry = json.load(open(report))["auto_shard"][0]
            t, b = statistics.median(times), statistics.median(base)
            failed |= t >= 60
            params = sum(4 * 768 * 768 for _ in range(4)) + 2 * 4 * 768 * 3072
            print("| %d | %d | %s | %.2f | %.2f | %.1f | %s | %d (%d) | %.3f | %.0f |" % (
                layers, ops, label if not budget else "%d bytes" % budget, t, b, t / b,
                entry["solver"]["status"], entry["solver"]["nodes"],
                entry["solver"]["nodes_before_sharing"],
                entry["cost"]["total_seconds"] * 1e3,
                entry["cost"]["peak_memory_bytes"] / 1e6))
            if not budget:
                budget = entry["cost"]["peak_memory_bytes"] - layers * params // 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
