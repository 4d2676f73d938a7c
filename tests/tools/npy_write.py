#!/usr/bin/env python3
"""Writes .npy files of pseudo-random integers or floats, without numpy:
npy_write.py DIR SEED TYPE:SHAPE... writes DIR/arg0.npy, DIR/arg1.npy, ...
TYPE is i32, i64, f32 or f64; SHAPE like 8x16. Integers span [-50, 50), so
that sums, maxima and minima of different devices differ."""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npy_print import FORMATS  # noqa: E402

CODES = {"i32": "<i4", "i64": "<i8", "f32": "<f4", "f64": "<f8"}


def write(path, kind, shape, rng):
    count = 1
    for s in shape:
        count *= s
    values = [rng.randrange(-50, 50) if kind[0] == "i" else rng.uniform(-1, 1)
              for _ in range(count)]
    write_values(path, CODES[kind], shape, values)


def write_values(path, descr, shape, values):
    """`values` (row-major) as a .npy of `descr` (one npy_print reads)."""
    count = len(values)
    shape_text = "(" + "".join("%d," % s for s in shape) + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        descr, shape_text)
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode())
        f.write(struct.pack("<%d%s" % (count, FORMATS[descr]), *values))


def main():
    out, seed = sys.argv[1], int(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    rng = random.Random(seed)
    for i, spec in enumerate(sys.argv[3:]):
        kind, shape = spec.split(":")
        write(os.path.join(out, "arg%d.npy" % i), kind,
              [int(s) for s in shape.split("x")], rng)


if __name__ == "__main__":
    main()
