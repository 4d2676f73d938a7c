#!/usr/bin/env python3
"""Mutation campaigns through the tools: no input may crash or hang them.

Usage: mutation_campaign.py SPMD_OPT SPMD_RUN [--kind=programs|configs|npy]
           [--seed=S] [--cases=N] [--run-every=K] [--jobs=J]
           [--timeout=SEC] [--keep=DIR]

programs: mutants of tests/lit/run/Inputs/*.mlir (characters deleted and
  inserted, numbers replaced by edge values, pieces repeated) through
  `spmd-opt --spmd-pipeline`, and every K-th (--run-every, default 1) also
  through `spmd-run --check`.
configs: mutants of the HybridMesh configs of tests/lit/Inputs
  through `spmd-opt --spmd-mesh-config`, every K-th also through
  `spmd-run --mesh-config`.
npy: .npy inputs of a 16x32 f32 argument (headers edited, bytes flipped,
  files cut or extended) through `spmd-run --inputs --check`.

Errors are fine (exit codes 0, 1, 2); a signal, another exit code or a run
past the timeout is a failure, kept in --keep (or a temporary folder).
Ends with `checks: P passed, F failed` (the verdicts of the mutants
that `spmd-run --check` ran to the end) and `mutants: N passed, M failed`;
exits 1 if M > 0.
"""
import argparse
import concurrent.futures
import glob
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

CHARS = "{}[]<>(),=?@\"0123456789-pxq \n"
CONFIG_CHARS = "[]{},:\"'&*-!|>#\n 0123456789ax"
NUMBERS = ["0", "-1", "1", "3", "7", "65536", "4294967296",
           "9223372036854775807", "-9223372036854775808",
           "99999999999999999999"]

HERE = os.path.dirname(os.path.abspath(__file__))
LIT = os.path.join(HERE, "..", "lit")
UNARY = os.path.join(LIT, "run", "Inputs", "unary.mlir")  # one 16x32xf32 argument
EMPTY = os.path.join(LIT, "Inputs", "empty.mlir")


def mutate_text(text, rng, chars):
    for _ in range(rng.randint(1, 3)):
        if not text:
            break
        at = rng.randrange(len(text))
        kind = rng.randrange(4)
        if kind == 0:
            text = text[:at] + text[at + rng.randint(1, 4):]
        elif kind == 1:
            text = text[:at] + rng.choice(chars) + text[at:]
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


def npy_file(descr, shape, data, version=1):
    dims = "".join("%d, " % s for s in shape).rstrip(" ")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    prefix = 10 if version == 1 else 12
    header += " " * ((64 - (prefix + len(header) + 1) % 64) % 64) + "\n"
    size = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode() + data


NPY_SEEDS = [
    npy_file("<f4", [16, 32], struct.pack("<512f", *[i / 7 for i in range(512)])),
    npy_file("<f4", [16, 32], bytes(2048), version=2),
    npy_file("<f8", [16, 32], bytes(4096)),
    npy_file("<f4", [512], bytes(2048)),
]


def mutate_npy(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(5)
        if kind == 0 and data:  # flip a byte, mostly in the header
            at = rng.randrange(min(len(data), 128) if rng.random() < 0.8 else len(data))
            data[at] = rng.randrange(256)
        elif kind == 1:  # edit the header's text
            end = data.find(b"\n")
            if end > 10:
                head = mutate_text(data[10:end].decode("latin-1"), rng, CONFIG_CHARS + "'()<fi")
                data = data[:10] + head.encode("latin-1") + data[end:]
        elif kind == 2:  # cut
            data = data[:rng.randrange(len(data) + 1)]
        elif kind == 3:  # extend
            data += bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        elif len(data) >= 12:  # header length field
            data[8:10] = struct.pack("<H", rng.choice([0, 1, 118, 65535, rng.randrange(65536)]))
    return bytes(data)


def commands(kind, a, path, case):
    """The commands a mutant goes through."""
    run = case % a.run_every == 0
    if kind == "programs":
        cmds = [[a.spmd_opt, path, "--spmd-pipeline", "-o", os.devnull]]
        if run:
            cmds.append([a.spmd_run, path, "--check"])
    elif kind == "configs":
        cmds = [[a.spmd_opt, EMPTY, "--spmd-mesh-config=" + path, "-o", os.devnull]]
        if run:
            cmds.append([a.spmd_run, UNARY, "--mesh-config=" + path, "--check"])
    else:
        cmds = [[a.spmd_run, UNARY, "--inputs=" + os.path.dirname(path), "--check"]]
    return cmds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spmd_opt")
    ap.add_argument("spmd_run")
    ap.add_argument("--kind", choices=["programs", "configs", "npy"], default="programs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--run-every", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=20)
    ap.add_argument("--keep", default="")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    if a.kind == "programs":
        seeds = [open(p).read() for p in
                 sorted(glob.glob(os.path.join(LIT, "run", "Inputs", "*.mlir")))]
    elif a.kind == "configs":
        seeds = [open(p).read() for p in
                 sorted(glob.glob(os.path.join(LIT, "Inputs", "*.yaml")) +
                        glob.glob(os.path.join(LIT, "Inputs", "*.json")))]
    keep = a.keep or tempfile.mkdtemp(prefix="mutants-")
    os.makedirs(keep, exist_ok=True)
    env = dict(os.environ, SPMD_MAX_TENSOR_BYTES="100000000",
               SPMD_MAX_LOCAL_DEVICES="64")

    # Mutants are drawn in order (one generator), then run in parallel.
    mutants = []
    for case in range(a.cases):
        name = "m%d_%d" % (a.seed, case)
        if a.kind == "programs":
            mutants.append((os.path.join(keep, name + ".mlir"),
                            mutate_text(rng.choice(seeds), rng, CHARS).encode()))
        elif a.kind == "configs":
            mutants.append((os.path.join(keep, name + ".yaml"),
                            mutate_text(rng.choice(seeds), rng, CONFIG_CHARS).encode()))
        else:
            mutants.append((os.path.join(keep, name, "arg0.npy"),
                            mutate_npy(rng.choice(NPY_SEEDS), rng)))

    def check(case):
        """What went wrong (None if nothing) and the check's verdict."""
        path, data = mutants[case]
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        verdict = None
        for cmd in commands(a.kind, a, path, case):
            try:
                r = subprocess.run(cmd, capture_output=True, text=True,
                                   errors="replace", timeout=a.timeout, env=env)
                if r.returncode not in (0, 1, 2):
                    return "%s exit %d: %s" % (os.path.basename(cmd[0]), r.returncode,
                                               r.stderr.strip().splitlines()[-1:]), verdict
                found = re.search(r"^check: (PASS|FAIL)", r.stdout, re.M)
                verdict = found.group(1) if found else verdict
            except subprocess.TimeoutExpired:
                return "%s hang" % os.path.basename(cmd[0]), verdict
        os.remove(path)
        if a.kind == "npy":
            os.rmdir(os.path.dirname(path))
        return None, verdict

    passed = failed = 0
    verdicts = {"PASS": 0, "FAIL": 0}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for case, (bad, verdict) in enumerate(pool.map(check, range(a.cases))):
            if verdict:
                verdicts[verdict] += 1
            if bad:
                failed += 1
                print("FAIL %s: %s" % (mutants[case][0], bad))
            else:
                passed += 1
    if failed:
        print("failing mutants are in %s" % keep)
    elif not a.keep:
        os.rmdir(keep)
    # Mutants that ran and were checked (a FAIL: the partitioned program
    # differs from the unpartitioned one, or the check's slack is short).
    print("checks: %d passed, %d failed" % (verdicts["PASS"], verdicts["FAIL"]))
    print("mutants: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
