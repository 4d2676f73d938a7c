#!/usr/bin/env python3
"""Random programs run by spmd-run and by upstream MLIR's own lowering, which
must agree: an oracle independent of the evaluator.

Usage: upstream_oracle.py SPMD_RUN [--seed=S] [--cases=N] [--floats=f64,...]
                          [--sizes=1,7,300] [--keep=DIR] [--mlir-bin=DIR]

`spmd-run --check` compares the partitioned program with the unpartitioned
one, both run by the same evaluator and kernels: a wrong kernel or a wrong
rule of the evaluator is wrong in both. Here each program of
fuzz_programs.py (the same grammar) is also lowered by upstream passes
(one-shot bufferization, linalg to loops, to LLVM) and run by
`mlir-runner`, from the same inputs; the results must match. Integers
exactly; floats bit for bit through f64 results (their bits are printed as
i64, so nothing is lost in printing), within a tolerance for narrower
floats: spmd-run computes a body's f32 in f64 and upstream in f32, and the
two may sum in different orders, so they may round apart (by up to the
type's epsilon times the longest reduction). The default floats are f64
only, where the two agree to the last few bits; --floats=f32,f16,bf16,f64
draws every type.

linalg.softmax is decomposed upstream first (by the transform dialect) and
tensor.gather written as a generic of tensor.extract; programs whose ops
the upstream lowering does not take, or that upstream does not finish in
time, are counted as skipped (spmd-run failing or not finishing is a
difference). Annotations and sharding constraints are dropped for the
upstream run; spmd-run runs the program as written (partitioned). Ends
with `oracle: N agreed, M differed, K skipped` and exits 1 if M > 0.
"""
import argparse
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_programs  # noqa: E402
from fuzz_programs import affine, ttype  # noqa: E402
from npy_print import read_npy  # noqa: E402
from npy_write import write_values  # noqa: E402

MLIR_BIN = "/usr/lib/llvm-22/bin"  # its ../lib holds the runner libraries
LOWERING = [
    "--convert-elementwise-to-linalg", "--empty-tensor-to-alloc-tensor",
    "--one-shot-bufferize=bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map "
    "allow-return-allocs-from-loops",
    "--convert-linalg-to-loops", "--convert-scf-to-cf",
    "--expand-strided-metadata", "--lower-affine",
    "--finalize-memref-to-llvm", "--convert-math-to-llvm",
    "--convert-math-to-libm", "--convert-arith-to-llvm",
    "--convert-index-to-llvm", "--convert-func-to-llvm",
    "--convert-cf-to-llvm", "--reconcile-unrealized-casts",
]
# linalg.softmax has no lowering of its own upstream: its decomposition
# (max, exp of the difference, sum, division) by the transform dialect.
DECOMPOSE_SOFTMAX = """
transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
  %s = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
  %d = transform.structured.decompose_interface %s : (!transform.any_op) -> !transform.any_op
  transform.yield
}
"""
# .npy descr of each argument type (bf16 travels as f32).
NPY = {"f64": "<f8", "f32": "<f4", "bf16": "<f4", "f16": "<f2", "i1": "|b1",
       "i8": "|i1", "i16": "<i2", "i32": "<i4", "i64": "<i8", "index": "<i8"}
FLOAT_TYPES = ("f64", "f32", "f16", "bf16")
# Inputs travel as dense literals in the upstream program's text.
MAX_INPUT_ELEMENTS = 300000
# |ours - upstream| <= ABS + max(REL, L * EPS) * max(|ours|, |upstream|) by
# result type (ABS, REL, EPS), where L bounds the program's longest
# reduction: both sum in some order, rounding at each step.
TOLERANCE = {"f64": (1e-12, 1e-12, 2.0 ** -52), "f32": (1e-5, 1e-5, 2.0 ** -23),
             "f16": (2e-2, 1e-2, 2.0 ** -10), "bf16": (1e-1, 4e-2, 2.0 ** -7)}


def drop_spmd(text):
    """The program without annotations, mesh and constraints (None if
    another spmd op remains)."""
    out = []
    marker = " {spmd.sharding = #spmd.sharding<"
    while marker in text:
        at = text.index(marker)
        depth, i = 1, at + len(marker)
        while depth:
            depth += {"<": 1, ">": -1}.get(text[i], 0)
            i += 1
        assert text[i] == "}"
        text = text[:at] + text[i + 1:]
    for line in text.splitlines():
        if line.startswith("spmd.mesh"):
            continue
        m = re.match(r"(\s*)(%\w+) = spmd\.sharding_constraint (%[\w#]+) <.*> : (.*)$", line)
        if m:
            indent, name, value, t = m.groups()
            line = "%s%s = tensor.cast %s : %s to %s" % (indent, name, value, t, t)
        out.append(line)
    text = "\n".join(out) + "\n"
    return None if "spmd." in text else text


GATHER = re.compile(
    r"(\s*)%(\w+) = tensor\.gather (%[\w#]+)\[(%[\w#]+)\] gather_dims\(\[0\]\)(?: unique)? : "
    r"\(tensor<(\d+)x(\d+)x(\w+)>, (tensor<\d+x1xi32>)\) -> (tensor<[^>]*>)$")


def gathers_as_generics(text):
    """tensor.gather (which upstream does not bufferize) of rows, as the
    generic that reads each row with tensor.extract at its position,
    clamped as spmd-run documents for positions outside the source."""
    out = []
    for line in text.splitlines():
        m = GATHER.match(line)
        if not m:
            out.append(line)
            continue
        indent, name, src, ids, rows, cols, et, ids_type, result = m.groups()
        rank = len(parse_type(result)[1])
        ids_map = affine(["d0", "d1" if rank == 3 else "0"], rank)
        out_map = affine(["d%d" % d for d in range(rank)], rank)
        v = "%%%s_" % name
        out += [indent + line for line in [
            "%sinit = tensor.empty() : %s" % (v, result),
            "%%%s = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]}" % (
                name, ids_map, out_map, ", ".join(['"parallel"'] * rank)),
            "    ins(%s : %s) outs(%sinit : %s) {" % (ids, ids_type, v, result),
            "^bb0(%sid: i32, %sout: %s):" % (v, v, et),
            "  %sat = arith.index_cast %sid : i32 to index" % (v, v),
            "  %szero = arith.constant 0 : index" % v,
            "  %slast = arith.constant %d : index" % (v, int(rows) - 1),
            "  %slow = arith.maxsi %sat, %szero : index" % (v, v, v),
            "  %srow = arith.minsi %slow, %slast : index" % (v, v, v),
            "  %scol = linalg.index %d : index" % (v, rank - 1),
            "  %sx = tensor.extract %s[%srow, %scol] : tensor<%sx%sx%s>" % (
                v, src, v, v, rows, cols, et),
            "  linalg.yield %sx : %s" % (v, et),
            "} -> %s" % result]]
    return "\n".join(out) + "\n"


def parse_type(t):
    """('f32', [3, 4]) from tensor<3x4xf32>; ('index', None) from index."""
    if t == "index":
        return "index", None
    parts = t[len("tensor<"):-1].split("x")
    return parts[-1], [int(s) for s in parts[:-1]]


def signature(text):
    m = re.search(r"func\.func @main\((.*)\) -> \((.*)\) \{", text)
    args = [parse_type(t) for t in re.findall(r"%a\d+: (tensor<[^>]*>|index)", m.group(1))]
    return args, parse_type(m.group(2).strip())


def count(shape):
    return math.prod(shape) if shape else 1


def random_input(rng, et, shape):
    """Row-major values: floats k/64 in [-1, 1) (exact in every float
    type; zeros of either sign, whose signs the ops must keep as upstream
    does), integers in {0, 1} (valid as indices)."""
    def one_float():
        v = rng.randrange(-64, 64) / 64.0
        return -0.0 if v == 0 and rng.randrange(2) else v
    if et in FLOAT_TYPES:
        return [one_float() for _ in range(count(shape))]
    return [rng.randrange(2) for _ in range(count(shape))]


def literal(values, et, shape):
    """The dense literal of row-major `values`."""
    def item(v):
        if et == "i1":
            return "true" if v else "false"
        return repr(float(v)) if et in FLOAT_TYPES else str(int(v))

    def nest(flat, dims):
        if not dims:
            return item(flat[0])
        step = count(dims[1:])
        return "[" + ", ".join(nest(flat[i * step:(i + 1) * step], dims[1:])
                               for i in range(dims[0])) + "]"
    return nest(values, shape)


def wrapper(args, inputs, result):
    """An entry that calls @main on the inputs as constants and prints the
    result's elements as i64 (float bits through f64)."""
    et, shape = result
    lines = ["func.func @oracle_entry() {"]
    names = []
    for i, ((at, ashape), value) in enumerate(zip(args, inputs)):
        if ashape is None:
            lines.append("  %%in%d = arith.constant %d : index" % (i, value[0]))
        else:
            lines.append("  %%in%d = arith.constant dense<%s> : %s" % (
                i, literal(value, at, ashape), ttype(ashape, at)))
        names.append("%%in%d" % i)
    arg_types = ", ".join("index" if s is None else ttype(s, t) for t, s in args)
    rt = ttype(shape, et)
    lines.append("  %%r = call @main(%s) : (%s) -> %s" % (", ".join(names), arg_types, rt))
    it = ttype(shape, "i64")
    # The element as i64: %x itself, or its bits through f64, or extended.
    convert, element = [], "%x"
    if et in FLOAT_TYPES:
        if et != "f64":
            convert.append("    %%w = arith.extf %%x : %s to f64" % et)
        convert.append("    %%i = arith.bitcast %s : f64 to i64" % (
            "%x" if et == "f64" else "%w"))
        element = "%i"
    elif et != "i64":
        convert.append("    %%i = arith.%s %%x : %s to i64" % (
            "extui" if et == "i1" else "extsi", et))
        element = "%i"
    identity = affine(["d%d" % d for d in range(len(shape))], len(shape))
    lines += [
        "  %z = arith.constant 0 : i64",
        "  %%e = tensor.empty() : %s" % it,
        "  %%f = linalg.fill ins(%%z : i64) outs(%%e : %s) -> %s" % (it, it),
        "  %%b = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]}"
        % (identity, identity, ", ".join(['"parallel"'] * len(shape))),
        "      ins(%%r : %s) outs(%%f : %s) {" % (rt, it),
        "  ^bb0(%%x: %s, %%o: i64):" % et] + convert + [
        "    linalg.yield %s : i64" % element,
        "  } -> %s" % it,
        "  %%m = bufferization.to_buffer %%b : %s to memref<%s>" % (it, it[len("tensor<"):-1]),
        "  %%u = memref.cast %%m : memref<%s> to memref<*xi64>" % it[len("tensor<"):-1],
        "  call @printMemrefI64(%u) : (memref<*xi64>) -> ()",
        "  return",
        "}",
        "func.func private @printMemrefI64(memref<*xi64>) attributes { llvm.emit_c_interface }",
    ]
    return "\n".join(lines) + "\n"


def upstream_result(mlir_bin, folder, text, timeout):
    """The result's elements as i64, or an error string when the lowering
    does not take the program."""
    src, low = os.path.join(folder, "upstream.mlir"), os.path.join(folder, "lowered.mlir")
    passes = LOWERING
    if "linalg.softmax" in text:
        text = "module attributes {transform.with_named_sequence} {\n%s%s}\n" % (
            text, DECOMPOSE_SOFTMAX)
        passes = ["--transform-interpreter",
                  "--test-transform-dialect-erase-schedule"] + LOWERING
    with open(src, "w") as f:
        f.write(text)
    p = subprocess.run([os.path.join(mlir_bin, "mlir-opt"), src, "-o", low] + passes,
                       capture_output=True, text=True, timeout=timeout)
    if p.returncode:
        first = (p.stderr.strip().splitlines() or ["?"])[0]
        return None, "lowering: " + re.sub(r"^\S+:\d+:\d+: ", "", first)
    libs = ",".join(os.path.join(mlir_bin, "..", "lib", l) for l in
                    ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so"))
    p = subprocess.run([os.path.join(mlir_bin, "mlir-runner"), low, "-e", "oracle_entry",
                        "-entry-point-result=void", "-shared-libs=" + libs],
                       capture_output=True, text=True, timeout=timeout)
    if p.returncode:
        first = (p.stderr.strip().splitlines() or ["?"])[0]
        return None, "mlir-runner: " + re.sub(r'^loc\("[^"]*":\d+:\d+\): ', "", first)
    data = p.stdout.split("data =", 1)[1]
    return [int(v) for v in re.findall(r"-?\d+", data)], None


def same(mine, ref, et, longest):
    if et not in FLOAT_TYPES:
        return int(mine) == ref
    if math.isnan(mine) or math.isnan(ref):
        return math.isnan(mine) and math.isnan(ref)
    if mine == ref:  # and zeros of the same sign
        return mine != 0 or math.copysign(1, mine) == math.copysign(1, ref)
    absolute, relative, eps = TOLERANCE[et]
    scale = max(abs(mine), abs(ref))
    return abs(mine - ref) <= absolute + max(relative, longest * eps) * scale


def longest_reduction(text):
    """A bound on the program's longest reduction: its largest tensor
    (every reduced loop is read by an operand)."""
    return max([count([int(d) for d in shape.split("x")[:-1]])
                for shape in re.findall(r"tensor<([^>]*)>", text)] + [1])


def compare(ours, bits, et, longest):
    """The positions that differ (the first 5, with both values) and their
    count."""
    if et in FLOAT_TYPES:
        ref = [struct.unpack("<d", struct.pack("<q", b))[0] for b in bits]
    else:
        ref = bits
    bad = [i for i, (m, r) in enumerate(zip(ours, ref))
           if not same(m, r, et, longest)]
    return [(i, ours[i], ref[i]) for i in bad[:5]], len(bad)


def run_case(spmd_run, mlir_bin, seed, folder, timeout):
    """'agreed', 'differed: ...' or 'skipped: ...'."""
    rng = random.Random(seed)
    # Upstream MLIR has no manual regions.
    text = fuzz_programs.make_program(rng, regions=False)
    with open(os.path.join(folder, "program.mlir"), "w") as f:
        f.write(text)
    plain = drop_spmd(text)
    if plain is None:
        return "skipped: an spmd op other than a constraint"
    plain = gathers_as_generics(plain)
    args, result = signature(plain)
    if result[1] is None:
        return "skipped: a scalar result"
    if sum(count(s) for _, s in args) > MAX_INPUT_ELEMENTS:
        return "skipped: inputs of more than %d elements" % MAX_INPUT_ELEMENTS
    values = random.Random(seed)
    inputs = [random_input(values, t, s) for t, s in args]
    in_dir, out_dir = os.path.join(folder, "in"), os.path.join(folder, "out")
    os.makedirs(in_dir, exist_ok=True)
    for i, ((t, s), a) in enumerate(zip(args, inputs)):
        write_values(os.path.join(in_dir, "arg%d.npy" % i), NPY[t], s or [], a)
    try:
        bits, why = upstream_result(mlir_bin, folder, plain + wrapper(args, inputs, result),
                                    timeout)
    except subprocess.TimeoutExpired:
        return "skipped: upstream did not finish in %d s" % timeout
    if bits is None:
        return "skipped: " + why
    try:
        p = subprocess.run([spmd_run, os.path.join(folder, "program.mlir"),
                            "--inputs=" + in_dir, "--outputs=" + out_dir],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "differed: spmd-run did not finish in %d s" % timeout
    if p.returncode:
        return "differed: spmd-run failed: " + (p.stderr.strip() or p.stdout.strip())[-300:]
    ours = read_npy(os.path.join(out_dir, "result0.npy"))[1]
    if len(ours) != len(bits):
        return "differed: %d elements, upstream %d" % (len(ours), len(bits))
    shown, wrong = compare(ours, bits, result[0], longest_reduction(plain))
    if wrong:
        return "differed: %d of %d elements of %s, e.g. %s" % (
            wrong, len(ours), result[0],
            ", ".join("[%d] %r vs %r" % s for s in shown))
    return "agreed"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spmd_run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=50)
    ap.add_argument("--floats", default="f64")
    ap.add_argument("--sizes", default=None,
                    help="loop and tensor sizes to draw from (default the generator's)")
    ap.add_argument("--keep", default=None)
    ap.add_argument("--mlir-bin", default=MLIR_BIN)
    ap.add_argument("--timeout", type=int, default=120)
    a = ap.parse_args()
    if not os.access(os.path.join(a.mlir_bin, "mlir-runner"), os.X_OK):
        print("oracle: skipped (no mlir-runner in %s)" % a.mlir_bin)
        return 0
    fuzz_programs.FLOATS[:] = a.floats.split(",")
    if a.sizes:
        fuzz_programs.SIZES[:] = [int(s) for s in a.sizes.split(",")]
    keep = a.keep or tempfile.mkdtemp(prefix="spmd-oracle-")
    counts = {"agreed": 0, "differed": 0, "skipped": 0}
    skipped = {}
    for case in range(a.cases):
        seed = a.seed * 100003 + case
        folder = os.path.join(keep, "case-%d" % seed)
        os.makedirs(folder, exist_ok=True)
        verdict = run_case(a.spmd_run, a.mlir_bin, seed, folder, a.timeout)
        kind = verdict.split(":")[0]
        counts[kind] += 1
        if kind == "differed":
            print("case %d (%s): %s" % (seed, folder, verdict))
        else:
            if kind == "skipped":
                reason = verdict.split(": ", 1)[1][:90]
                skipped[reason] = skipped.get(reason, 0) + 1
            shutil.rmtree(folder)
    for reason, n in sorted(skipped.items(), key=lambda x: -x[1]):
        print("skipped %d: %s" % (n, reason))
    print("oracle: %d agreed, %d differed, %d skipped" % (
        counts["agreed"], counts["differed"], counts["skipped"]))
    if not counts["differed"] and not a.keep:
        shutil.rmtree(keep, ignore_errors=True)
    return 1 if counts["differed"] else 0


if __name__ == "__main__":
    sys.exit(main())
