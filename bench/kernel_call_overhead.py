#!/usr/bin/env python3
"""Overhead of one small kernel call, before and after a runtime change.

Usage: kernel_call_overhead.py BEFORE_SPMD_RUN AFTER_SPMD_RUN [--rounds=R]

Runs a program of one small elementwise kernel (and nothing else) on 1, 2
and 4 devices with both binaries, alternating them round by round so both
see the same machine, and prints each median `run_ms` and the ratio
after / before (below 1: the change made the call cheaper). BEFORE is
usually built from an older revision:

  git worktree add /tmp/before REV && cmake -S /tmp/before -B /tmp/before/build -G Ninja \
    && cmake --build /tmp/before/build --target spmd-run
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile

PROGRAM = """spmd.mesh @mesh = <["x"=%(devices)d]>
func.func @f(%%a: tensor<%(size)dxf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<%(size)dxf32> {
  %%0 = arith.addf %%a, %%a : tensor<%(size)dxf32>
  return %%0 : tensor<%(size)dxf32>
}
"""


def run_ms(binary, path, iters):
    out = subprocess.run([binary, path, "--iters=%d" % iters], check=True,
                         capture_output=True, text=True).stdout
    return float(re.search(r"run_ms=([0-9.]+)", out).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--iters", type=int, default=200)
    a = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="overhead-")
    print("devices  before_ms  after_ms  after/before")
    for devices in (1, 2, 4):
        path = os.path.join(folder, "small-%d.mlir" % devices)
        with open(path, "w") as f:
            f.write(PROGRAM % {"devices": devices, "size": 64 * devices})
        times = {"before": [], "after": []}
        for _ in range(a.rounds):
            times["before"].append(run_ms(a.before, path, a.iters))
            times["after"].append(run_ms(a.after, path, a.iters))
        before = statistics.median(times["before"])
        after = statistics.median(times["after"])
        print("%7d  %9.4f  %8.4f  %12.2f" % (devices, before, after, after / before))
        os.remove(path)
    os.rmdir(folder)


if __name__ == "__main__":
    main()
