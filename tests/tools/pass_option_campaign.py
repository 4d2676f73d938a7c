#!/usr/bin/env python3
"""A campaign of pass options: no value of any option may crash or hang spmd-opt.

Usage: pass_option_campaign.py SPMD_OPT [--seed=S] [--cases=N] [--jobs=J]
           [--timeout=SEC] [--keep=DIR]

The passes and their options (with their types and enum values) are read
from `SPMD_OPT --help`. Each case runs one pass of the spmd-* family, or
spmd-pipeline, on one of a few small programs of tests/lit, with one to
three of its options set to edge values (zero, negative, subnormal, huge,
inf, nan, sizes past 2^63, empty, unknown names and words, bare keys, files
that cannot be written or read) or random ones, written either as
`--PASS=options` or in a `--pass-pipeline`.

Errors are fine (exit 1 with an `error: ...` line that says something);
a failure is a signal, an exit code other than 0, 1 or 2, a stack dump,
`LLVM ERROR`, an assertion or a sanitizer report, an error exit with no
message, or a run past the timeout. Failing cases are kept in --keep (or
a temporary folder) as shell scripts. Ends with
`cases: N passed, M failed`; exits 1 if M > 0.
"""
import argparse
import concurrent.futures
import os
import random
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LIT = os.path.normpath(os.path.join(HERE, "..", "lit"))
PROGRAMS = [
    os.path.join(LIT, "Inputs", "auto-shard-mlp.mlir"),
    os.path.join(LIT, "run", "Inputs", "mlp.mlir"),
    os.path.join(LIT, "run", "Inputs", "auto-shard", "4axis-matmul.mlir"),
    os.path.join(LIT, "Inputs", "uses-batch.mlir"),
    os.path.join(LIT, "Inputs", "empty.mlir"),
]
MESH_CONFIGS = [
    os.path.join(LIT, "Inputs", "hybrid.yaml"),
    os.path.join(LIT, "Inputs", "hybrid-2x4.yaml"),
    os.path.join(LIT, "Inputs", "zero-size.yaml"),
    os.path.join(LIT, "Inputs", "huge-mesh.yaml"),
]
# What runs before a pass so that it has something to work on.
BEFORE = {
    "spmd-partition": ["--spmd-propagate"],
    "spmd-optimize-collectives": ["--spmd-propagate", "--spmd-partition"],
    "spmd-comm-report": ["--spmd-propagate", "--spmd-partition"],
}
# Outputs in error: they mean a crash or an internal error, not a
# diagnostic.
CRASH = re.compile(r"Stack dump|LLVM ERROR|Assertion .* failed|PLEASE submit|"
                   r"AddressSanitizer|LeakSanitizer|runtime error:|"
                   r"terminate called|Segmentation fault")

NUMBERS = ["0", "-0", "-1", "1", "0.5", "2", "1e-3", "1e-4", "1e6", "1000001",
           "1e9", "1e10", "1e30", "1e31", "1e300", "1e308", "1.8e308",
           "1e-300", "1e-320", "4.9e-324", "2.2250738585072014e-308", "inf",
           "-inf", "nan", "+1", "0x10", "1e", "abc", "", "10 20"]
INTEGERS = ["0", "1", "-1", "2", "255", "256", "257", "65536", "4294967295",
            "4294967296", "9223372036854775807", "18446744073709551616",
            "99999999999999999999", "1.5", "x", "", " 3"]
SIZES = ["0", "1", "100", "16MB", "16.4MiB", "2GiB", "1e30MB", "-1", "-0",
         "lots", "", "1 MB", "9223372036854775807", "9223372036854775808",
         "18446744073709551616", "1e19", "8e18B", "inf", "nanKB", "1KiBKiB",
         "4.9e-324", "MB"]
WORDS = ["", "x", "-", "cbc", "enumerate", "basic", "aggressive", "true",
         "false", "1", "0", "{}", "{a=1}", "\"\"", "'q'", "\u00e9", "a" * 300]


def read_options(spmd_opt):
    """{pass: [(option, type, [enum values])]} from spmd-opt --help."""
    text = subprocess.run([spmd_opt, "--help"], capture_output=True,
                          text=True, check=True).stdout
    passes, current, option = {}, None, None
    for line in text.splitlines():
        m = re.match(r"^      --(spmd-[\w-]+)\s+-", line)
        if m:
            current = passes.setdefault(m.group(1), [])
            option = None
            continue
        m = re.match(r"^        --([\w-]+)(?:=<(\w+)>)?\s", line)
        if m and current is not None:
            option = [m.group(1), m.group(2) or "bool", []]
            current.append(option)
            continue
        m = re.match(r"^    =([\w-]+)\s", line)
        if m and option is not None:
            option[2].append(m.group(1))
            continue
        if not line.startswith("        ") and not line.startswith("    ="):
            current = option = None
    return passes


class Values:
    """Edge and random values of each kind of option."""

    def __init__(self, rng, scratch):
        self.rng = rng
        self.scratch = scratch
        self.unwritable = [
            "/dev/full", scratch, os.path.join(scratch, "missing", "r.json"),
            os.path.join(scratch, "read-only.json")]

    def random_number(self):
        r = self.rng
        return r.choice([
            "%.6ge%d" % (r.uniform(1, 10), r.randint(-330, 330)),
            "%g" % -(10 ** r.uniform(-10, 10)),
            str(r.randint(-10, 10 ** 6)),
            "%.17g" % r.uniform(0, 2)])

    def of(self, name, kind, enum):
        r = self.rng
        if r.random() < 0.05:
            return None  # a bare key
        if kind == "number":
            return r.choice(NUMBERS) if r.random() < 0.7 else self.random_number()
        if kind == "uint":
            return (r.choice(INTEGERS) if r.random() < 0.7
                    else str(r.randint(-2 ** 40, 2 ** 40)))
        if kind == "value":
            return r.choice(enum + WORDS)
        if kind == "bool":
            return r.choice(["true", "false", "1", "0", "TRUE", "yes", "2", "",
                             "-1"])
        # Strings, by what they name.
        if "budget" in name:
            return (r.choice(SIZES) if r.random() < 0.8
                    else self.random_number() + r.choice(["", "B", "KB", "GiB"]))
        if name in ("output", "report", "auto-shard-report"):
            return r.choice(["-", "", os.path.join(self.scratch, "out.json")]
                            + self.unwritable)
        if name == "file":
            return r.choice(MESH_CONFIGS + ["", self.scratch, "/dev/null",
                                            os.path.join(self.scratch, "fifo"),
                                            os.path.join(self.scratch, "none")])
        if name == "solver":
            return r.choice(["cbc", "enumerate", "", "CBC", "guess"])
        return r.choice(WORDS)


def quote(value):
    """A value as MLIR's option parser reads it."""
    if value == "" or re.search(r"[\s{}'\"]", value):
        if '"' not in value:
            return '"%s"' % value
        if "'" not in value:
            return "'%s'" % value
        return "{%s}" % value
    return value


def make_cases(rng, options, count, scratch):
    values = Values(rng, scratch)
    names = sorted(options)
    with_options = [n for n in names if options[n]]
    cases = []
    for _ in range(count):
        # Mostly the passes that take options.
        pass_name = rng.choice(with_options if rng.random() < 0.85 else names)
        known = options[pass_name]
        chosen = []
        if known:
            for name, kind, enum in rng.sample(known,
                                               rng.randint(1, min(3, len(known)))):
                chosen.append((name, values.of(name, kind, enum)))
        if rng.random() < 0.03:
            chosen.append(("no-such-option", "1"))
        text = " ".join(n if v is None else "%s=%s" % (n, quote(v))
                        for n, v in chosen)
        program = rng.choice(PROGRAMS)
        cmd = [program]
        if pass_name == "spmd-mesh-config" and rng.random() < 0.3:
            # The bare form: --spmd-mesh-config=FILE.
            cmd.append("--spmd-mesh-config=" + (values.of("file", "string", []) or ""))
        elif pass_name == "spmd-pipeline" or rng.random() < 0.7:
            cmd += BEFORE.get(pass_name, [])
            cmd.append("--%s=%s" % (pass_name, text) if text else "--" + pass_name)
        else:
            stages = [b.lstrip("-") for b in BEFORE.get(pass_name, [])]
            stages.append("%s{%s}" % (pass_name, text))
            cmd.append("--pass-pipeline=builtin.module(%s)" % ",".join(stages))
        cases.append((pass_name, cmd + ["-o", "/dev/null"]))
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("spmd_opt")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--keep")
    a = ap.parse_args()

    options = read_options(a.spmd_opt)
    if "spmd-auto-shard" not in options or "spmd-pipeline" not in options:
        print("error: no spmd passes in `%s --help`" % a.spmd_opt)
        return 2
    keep = a.keep or tempfile.mkdtemp(prefix="pass-options-")
    os.makedirs(keep, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="pass-option-files-")
    fifo = os.path.join(scratch, "fifo")
    os.mkfifo(fifo)
    read_only = os.path.join(scratch, "read-only.json")
    open(read_only, "w").close()
    os.chmod(read_only, stat.S_IRUSR)
    rng = random.Random(a.seed)
    cases = make_cases(rng, options, a.cases, scratch)

    def check(case):
        cmd = [a.spmd_opt] + cases[case][1]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               errors="replace", timeout=a.timeout,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return "timeout after %g s" % a.timeout
        out = r.stdout + r.stderr
        if r.returncode not in (0, 1, 2):
            return "exit %d: %s" % (r.returncode, out.strip().splitlines()[-1:])
        crash = CRASH.search(out)
        if crash:
            return "internal error: %s" % crash.group(0)
        if r.returncode != 0 and not re.search(r"error: \S", out):
            return "exit %d without an error message: %s" % (
                r.returncode, out.strip().splitlines()[-2:])
        return None

    per_pass = {}
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for case, bad in enumerate(pool.map(check, range(len(cases)))):
            name, cmd = cases[case]
            stats = per_pass.setdefault(name, [0, 0])
            stats[0] += 1
            if bad:
                failed += 1
                stats[1] += 1
                script = os.path.join(keep, "case%d_%d.sh" % (a.seed, case))
                with open(script, "w") as f:
                    f.write(shlex.join([a.spmd_opt] + cmd) + "\n")
                print("FAIL %s: %s" % (script, bad))
    for name in sorted(per_pass):
        print("  %s: %d cases, %d failed" % (name, *per_pass[name]))
    if failed:
        print("failing cases are in %s" % keep)
    elif not a.keep:
        os.rmdir(keep)
    os.chmod(read_only, stat.S_IRUSR | stat.S_IWUSR)
    shutil.rmtree(scratch, ignore_errors=True)
    print("cases: %d passed, %d failed" % (len(cases) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
