#!/usr/bin/env python3
"""Auto-shards a model with nothing annotated, then runs it checked.

Usage: auto_shard_corpus.py SPMD_OPT SPMD_RUN MODEL.mlir MESH.yaml OUTDIR

Adds the mesh of MESH.yaml, runs --spmd-auto-shard (its report beside the
output), fails when that takes 10 s or more, then runs the auto-sharded
module with `spmd-run --check` (models whose weights are elided cannot
run: their auto-sharded module must still partition). Prints the plan's
modelled cost, the time taken and spmd-run's check line.
"""
import json
import os
import subprocess
import sys
import time


def main():
    spmd_opt, spmd_run, model, mesh, outdir = sys.argv[1:6]
    os.makedirs(outdir, exist_ok=True)
    name = os.path.splitext(os.path.basename(model))[0]
    out = os.path.join(outdir, name + ".auto.mlir")
    report = os.path.join(outdir, name + ".auto.json")
    start = time.monotonic()
    subprocess.run([spmd_opt, model, "--spmd-mesh-config=" + mesh,
                    "--spmd-auto-shard=report=" + report, "-o", out],
                   check=True)
    seconds = time.monotonic() - start
    for f in json.load(open(report))["auto_shard"]:
        print("%s @%s: %s, %d ops, %d nodes, modelled %.3g s, peak %d bytes"
              % (name, f["function"], f["solver"]["status"], f["solver"]["ops"],
                 f["solver"]["nodes"], f["cost"]["total_seconds"],
                 f["cost"]["peak_memory_bytes"]))
    print("auto-sharded in %.2f s" % seconds)
    if seconds >= 10:
        print("FAIL: auto-sharding took 10 s or more")
        return 1
    if "__elided__" in open(model).read():
        subprocess.run([spmd_opt, out, "--spmd-pipeline", "-o", os.devnull],
                       check=True)
        print("check: PASS (elided weights: partitioned, not run)")
        return 0
    run = subprocess.run([spmd_run, out, "--check"], capture_output=True,
                         text=True)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
