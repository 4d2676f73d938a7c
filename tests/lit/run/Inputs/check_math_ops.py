#!/usr/bin/env python3
"""Compares math-ops.mlir's @unary results (DIR/result0.npy ...) with
Python's math module: each within 2 ulps of f32 of the value at the f32
inputs. Prints `math ops: PASS` or the first element that differs."""
import math
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "tools"))
from npy_print import read_npy  # noqa: E402

INPUTS = [-0.9, -0.5, -0.1, 0.0, 0.2, 0.4, 0.6, 0.8]
OPS = [("tan", math.tan), ("atan", math.atan), ("asin", math.asin),
       ("acos", math.acos), ("sinh", math.sinh), ("cosh", math.cosh),
       ("asinh", math.asinh), ("atanh", math.atanh), ("expm1", math.expm1),
       ("cbrt", lambda x: math.copysign(abs(x) ** (1 / 3), x)),
       ("erfc", math.erfc), ("log10", lambda x: math.log10(f32(x + f32(1)))),
       ("acosh", lambda x: math.acosh(f32(x + f32(2))))]


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def main():
    folder = sys.argv[1]
    for i, (name, fn) in enumerate(OPS):
        _, got = read_npy(os.path.join(folder, "result%d.npy" % i))
        for x, y in zip(INPUTS, got):
            want = fn(f32(x))
            ulp = math.ulp(f32(want)) * 2 ** 29  # an f32 ulp, from f64's
            if abs(y - want) > 2 * max(ulp, 2 ** -149):
                print("math ops: FAIL %s(%r) = %r, not %r" % (name, f32(x), y, want))
                return 1
    print("math ops: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
