#!/usr/bin/env python3
"""Compares .npy files pairwise: npy_compare.py A1 B1 [A2 B2 ...] [--tol T]
[--special]. Elements pass when |a - b| <= T * (1 + |b|); with --special
also NaN only against NaN and a zero only against a zero of its sign (else
NaN passes against anything). Prints one line per pair and exits 1 on any
mismatch. Used by lit tests without numpy."""
import math
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from npy_print import read_npy  # noqa: E402

args = sys.argv[1:]
special = "--special" in args
if special:
    args.remove("--special")
tol = 1e-5
if "--tol" in args:
    i = args.index("--tol")
    tol = float(args[i + 1])
    del args[i:i + 2]
ok = True
for a, b in zip(args[0::2], args[1::2]):
    (sa, va), (sb, vb) = read_npy(a), read_npy(b)
    def differ(x, y):
        if special and (math.isnan(x) or math.isnan(y)):
            return math.isnan(x) != math.isnan(y)
        if special and x == 0 and y == 0:
            return math.copysign(1, x) != math.copysign(1, y)
        return abs(x - y) > tol * (1 + abs(y))
    bad = [i for i, (x, y) in enumerate(zip(va, vb)) if differ(x, y)]
    if sa != sb or bad:
        ok = False
        print("MISMATCH %s %s: shapes %s %s, %d elements differ%s" %
              (a, b, sa, sb, len(bad),
               ", first at %d: %r vs %r" % (bad[0], va[bad[0]], vb[bad[0]])
               if bad else ""))
    else:
        print("match %d elements" % len(va))
sys.exit(0 if ok else 1)
