#!/usr/bin/env python3
"""Checks the results of nan-extrema.mlir's entry ENTRY (run on CPU path
PATH into DIR) against LLVM's maximum and minimum: NaN where either operand
is NaN. Prints `ok ENTRY PATH`, or `WRONG ...` with what differs."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "tools"))
from npy_print import read_npy  # noqa: E402

NAN = float("nan")
A = [NAN] + [float(i) for i in range(1, 20)]
B = [float(19 - i) for i in range(19)] + [NAN]


def maximum(x, y):
    return NAN if math.isnan(x) or math.isnan(y) else max(x, y)


def minimum(x, y):
    return NAN if math.isnan(x) or math.isnan(y) else min(x, y)


def pooled(values):
    """2x2 max windows of `values` as a 4x5 image, stride 1."""
    return [maximum(maximum(values[r * 5 + c], values[r * 5 + c + 1]),
                    maximum(values[r * 5 + 5 + c], values[r * 5 + 6 + c]))
            for r in range(3) for c in range(4)]


def expected(entry):
    if entry == "elementwise":
        return [[maximum(x, y) for x, y in zip(A, B)],
                [maximum(y, x) for x, y in zip(A, B)],
                [minimum(x, y) for x, y in zip(A, B)],
                [minimum(y, x) for x, y in zip(A, B)]]
    if entry == "elementwise_f64":
        return [[maximum(x, y) for x, y in zip(A, B)],
                [minimum(y, x) for x, y in zip(A, B)]]
    if entry in ("reduced", "across_devices"):
        return [[NAN] * 8]
    if entry == "pooled":
        return [pooled(A), pooled(B)]
    raise SystemExit("unknown entry " + entry)


def same(x, y):
    return (math.isnan(x) and math.isnan(y)) or x == y


entry, path, folder = sys.argv[1:4]
for k, want in enumerate(expected(entry)):
    got = list(read_npy(os.path.join(folder, "result%d.npy" % k))[1])
    if len(got) != len(want) or not all(map(same, got, want)):
        print("WRONG %s %s result%d: %s, not %s" % (entry, path, k, got, want))
        sys.exit(0)
print("ok %s %s" % (entry, path))
