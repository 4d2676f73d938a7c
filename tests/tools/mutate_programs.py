#!/usr/bin/env python3
"""Mutation campaign through the tools: no input may crash or hang them.

Usage: mutate_programs.py SPMD_OPT SPMD_RUN [--seed=S] [--cases=N]
                          [--timeout=SEC] [--keep=DIR]

Mutates the programs of tests/lit/run/Inputs (characters deleted and
inserted, numbers replaced by edge values, pieces repeated) and runs each
mutant through `spmd-opt --spmd-pipeline` and `spmd-run --check`. Errors
are fine (exit codes 0, 1, 2); a signal, another exit code or a run past
the timeout is a failure, kept in --keep (or a temporary folder). Ends
with `mutants: N passed, M failed`; exits 1 if M > 0.
"""
import argparse
import glob
import os
import random
import subprocess
import sys
import tempfile

CHARS = "{}[]<>(),=?@\"0123456789-pxq \n"
NUMBERS = ["0", "-1", "1", "3", "7", "65536", "9223372036854775807",
           "-9223372036854775808"]


def mutate(text, rng):
    for _ in range(rng.randint(1, 3)):
        if not text:
            break
        at = rng.randrange(len(text))
        kind = rng.randrange(4)
        if kind == 0:
            text = text[:at] + text[at + rng.randint(1, 4):]
        elif kind == 1:
            text = text[:at] + rng.choice(CHARS) + text[at:]
        elif kind == 2:
            begin = next((i for i in range(at, len(text)) if text[i].isdigit()), None)
            if begin is None:
                continue
            end = begin
            while end < len(text) and text[end].isdigit():
                end += 1
            text = text[:begin] + rng.choice(NUMBERS) + text[end:]
        else:
            text = text[:at] + text[at:at + rng.randint(1, 24)] + text[at:]
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spmd_opt")
    ap.add_argument("spmd_run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--timeout", type=int, default=20)
    ap.add_argument("--keep", default="")
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    seeds = sorted(glob.glob(os.path.join(here, "..", "lit", "run", "Inputs", "*.mlir")))
    texts = [open(p).read() for p in seeds]
    rng = random.Random(a.seed)
    keep = a.keep or tempfile.mkdtemp(prefix="mutants-")
    os.makedirs(keep, exist_ok=True)
    passed = failed = 0
    env = dict(os.environ, SPMD_MAX_TENSOR_BYTES="100000000",
               SPMD_MAX_LOCAL_DEVICES="64")
    for case in range(a.cases):
        path = os.path.join(keep, "m%d_%d.mlir" % (a.seed, case))
        with open(path, "w") as f:
            f.write(mutate(rng.choice(texts), rng))
        bad = None
        for cmd in ([a.spmd_opt, path, "--spmd-pipeline", "-o", os.devnull],
                    [a.spmd_run, path, "--check"]):
            try:
                r = subprocess.run(cmd, capture_output=True, text=True,
                                   timeout=a.timeout, env=env)
                if r.returncode not in (0, 1, 2):
                    bad = "%s exit %d: %s" % (os.path.basename(cmd[0]), r.returncode,
                                               r.stderr.strip().splitlines()[-1:] )
            except subprocess.TimeoutExpired:
                bad = "%s hang" % os.path.basename(cmd[0])
            if bad:
                break
        if bad:
            failed += 1
            print("FAIL %s: %s" % (path, bad))
        else:
            passed += 1
            os.remove(path)
    if failed:
        print("failing mutants are in %s" % keep)
    elif not a.keep:
        os.rmdir(keep)
    print("mutants: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
