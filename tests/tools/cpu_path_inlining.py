#!/usr/bin/env python3
"""Checks that each CPU path's copy of the block evaluator holds the
evaluator itself: cpu_path_inlining.py LIBSPMDEXECUTOR [--objdump PATH].

onCpuPath(body) compiles `body` for a path by inlining everything it calls
into a function with the path's target attribute. A call it leaves (to a
function GCC kept replaceable at load time, as it does when a precompiled
header was built without -fno-semantic-interposition) runs that callee's
baseline build: the evaluator then ran on SSE2's four lanes on every
path, correct and four times slower, and no other test saw it. Here the
runAvx2/runAvx512 copies of ScalarProgram::run must call neither
ScalarProgram::execute nor the evaluator's `evaluate`. Prints one line per
copy; exits 1 if one calls them, or if none is found on x86-64.
"""
import argparse
import platform
import re
import subprocess
import sys

FORBIDDEN = ("spmd::runtime::ScalarProgram::execute(",
             "spmd::runtime::evaluate(")
COPY = re.compile(r"^[0-9a-f]+ <void spmd::runtime::detail::run(Avx2|Avx512)"
                  r"<spmd::runtime::ScalarProgram::run\(")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("library")
    ap.add_argument("--objdump", default="objdump")
    a = ap.parse_args()
    if platform.machine() not in ("x86_64", "AMD64"):
        print("skipped: no CPU paths off x86-64")
        return 0
    text = subprocess.run([a.objdump, "-d", "--no-show-raw-insn", "-C",
                           a.library], check=True, capture_output=True,
                          text=True).stdout
    copies, failed = 0, False
    path, calls = None, []
    for line in text.splitlines() + [""]:
        m = COPY.match(line)
        if m:
            path, calls = m.group(1).lower(), []
            copies += 1
        elif path and not line.strip():  # the end of the copy's code
            baseline = [c for c in calls if any(f in c for f in FORBIDDEN)]
            failed |= bool(baseline)
            print("%s copy of ScalarProgram::run: %d calls, %d to the "
                  "evaluator's baseline build%s" %
                  (path, len(calls), len(baseline),
                   "".join("\n  " + c.strip() for c in baseline)))
            path = None
        elif path and "call" in line:
            calls.append(line)
    if copies == 0:
        print("no runAvx2/runAvx512 copy of ScalarProgram::run found")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
