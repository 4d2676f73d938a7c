#!/usr/bin/env python3
"""Flag, environment and file campaigns through the tools: no command line
may crash or hang them.

Usage: flag_campaign.py SPMD_OPT SPMD_RUN [--seed=S] [--cases=N] [--jobs=J]
           [--timeout=SEC] [--keep=DIR]

Each case runs spmd-run (on a small 4-device program) or spmd-opt with a
few of their flags given random and edge values (integers at and past
their limits, NaN, empty, words, unknown flags, response files), some
SPMD_* environment variables set to random and edge values, and files of
every kind where a file is expected: regular, empty, a FIFO, character
devices, symbolic links to a device or a FIFO, a directory, an unreadable
file, a missing path; where a file is written: /dev/full, /proc/version, a
read-only file, a folder whose result0.npy links to /dev/full, a path in a
missing folder or under a regular file. (A FIFO is not an output target:
writing to one waits for its reader, as for every program.)

Exit codes 0, 1 and 2 are fine, but exit codes 1 and 2 must come with an
`error:` line (or a failed check). A signal, another exit code, `LLVM ERROR`, a stack dump, a
sanitizer report or a run past the timeout is a failure, kept in --keep
(or a temporary folder) as a shell script that reproduces it. Ends with
`cases: N passed, M failed` and the count of each exit code; exits 1 if
M > 0. Failures that are known and not the tools' own (KNOWN) are counted
apart, as `known failures: K (why)`.
"""
import argparse
import collections
import concurrent.futures
import os
import random
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LIT = os.path.join(HERE, "..", "lit")
UNARY = os.path.join(LIT, "run", "Inputs", "unary.mlir")  # one 16x32xf32 argument
VALID = os.path.join(LIT, "tools", "Inputs", "valid.mlir")
MESH_CONFIG = os.path.join(LIT, "Inputs", "mesh-2x2.yaml")

INTEGERS = ["0", "-1", "1", "2", "3", "4", "7", "255", "256", "257", "1000",
            "8192", "8193", "65536", "16777216", "16777217", "2147483647",
            "2147483648", "4294967296", "9223372036854775807",
            "-9223372036854775808", "9223372036854775808",
            "18446744073709551616", "99999999999999999999", "0x10", "1e3",
            " 4", "4 ", "+4", "", "abc", "-", "4.5"]
REALS = ["0", "-1", "0.001", "1", "60", "1e6", "1000001", "1e300", "-1e300",
         "nan", "inf", "-inf", "1e-320", "", "x", "0x10", " 5"]
WORDS = ["", "f", "main", "nosuch", "@f", "a b", "é", "x" * 300, "%", "\\n",
         "-", "--", "baseline", "avx2", "avx512", "sse9", "true", "false"]
BOOLS = ["", "=true", "=false", "=1", "=0", "=2", "=maybe", "="]


class Fixture:
    """The files of every kind the cases name, in one temporary folder."""

    def __init__(self, root):
        self.root = root
        p = lambda *names: os.path.join(root, *names)
        os.makedirs(p("in"))
        # Each case reads its own copy of the programs: a lone `-o` may
        # take one as its output.
        self.program = PROGRAM
        self.opt_program = OPT_PROGRAM
        self.config = p("in", "mesh.yaml")
        if os.path.exists(MESH_CONFIG):
            shutil.copy(MESH_CONFIG, self.config)
        else:
            open(self.config, "w").write("ici_mesh_shape: [2, 2]\n"
                                         "dcn_mesh_shape: [1, 1]\n"
                                         "axis_names: [x, y]\n")
        empty = p("in", "empty")
        open(empty, "w").close()
        fifo = p("in", "fifo")
        os.mkfifo(fifo)
        folder = p("in", "folder")
        os.makedirs(folder)
        unreadable = p("in", "unreadable")
        shutil.copy(UNARY, unreadable)
        os.chmod(unreadable, 0)
        zero_link = p("in", "zero-link")
        os.symlink("/dev/zero", zero_link)
        fifo_link = p("in", "fifo-link")
        os.symlink(fifo, fifo_link)
        dangling = p("in", "dangling")
        os.symlink(p("in", "nothing-here"), dangling)
        garbage = p("in", "garbage")
        open(garbage, "wb").write(bytes(range(256)) * 4)
        # Files read where a file is expected.
        self.inputs = [empty, fifo, folder, unreadable, zero_link, fifo_link,
                       dangling, garbage, "/dev/zero", "/dev/urandom",
                       "/dev/null", "/dev/full", p("in", "missing"),
                       p("in", "missing", "deeper"), p("in", "empty", "x"),
                       "/proc/self/status", ""]

        # Folders of .npy inputs: arg0.npy of each kind.
        self.input_dirs = []
        for kind, make in [("zero", lambda f: os.symlink("/dev/zero", f)),
                           ("fifo", lambda f: os.mkfifo(f)),
                           ("fifolink", lambda f: os.symlink(fifo, f)),
                           ("dir", lambda f: os.makedirs(f)),
                           ("empty", lambda f: open(f, "w").close()),
                           ("garbage", lambda f: shutil.copy(garbage, f)),
                           ("unreadable", lambda f: (open(f, "w").close(),
                                                     os.chmod(f, 0))),
                           ("missing", lambda f: None)]:
            d = p("npy", kind)
            os.makedirs(d)
            make(os.path.join(d, "arg0.npy"))
            self.input_dirs.append(d)
        self.input_dirs += [folder, empty, "/dev/zero", fifo, p("in", "missing")]

        # Where an output is written.
        os.makedirs(p("out"))
        readonly = p("out", "readonly")
        open(readonly, "w").close()
        os.chmod(readonly, 0o444)
        self.outputs = ["/dev/full", "/proc/version", "/dev/null", readonly,
                        folder, p("out", "missing", "file"),
                        p("in", "empty", "file"), p("out", "full-link"), ""]
        os.symlink("/dev/full", p("out", "full-link"))
        self.new_output = lambda rng: p("out", "new%d" % rng.randrange(1000))

        # Folders of outputs.
        full_dir = p("outdir", "full")
        os.makedirs(full_dir)
        os.symlink("/dev/full", os.path.join(full_dir, "result0.npy"))
        dir_dir = p("outdir", "dir")
        os.makedirs(os.path.join(dir_dir, "result0.npy"))
        self.output_dirs = [full_dir, dir_dir, empty, "/dev/full", "/dev/null",
                            p("outdir", "missing", "deeper"), "/proc", ""]

        # Response files.
        args = p("in", "args")
        open(args, "w").write("--iters=2\n")
        self.responses = [args, empty, fifo, folder, "/dev/zero", zero_link,
                          garbage, p("in", "missing")]

    def any_input(self, rng, regular):
        return regular if rng.random() < 0.3 else rng.choice(self.inputs)

    def any_output(self, rng):
        return self.new_output(rng) if rng.random() < 0.3 else rng.choice(
            self.outputs)


PROGRAM = "{program}"
OPT_PROGRAM = "{opt_program}"


def value(rng, pool):
    return rng.choice(pool)


def run_flags(fx, rng):
    """One random flag of spmd-run."""
    kind = rng.randrange(17)
    if kind == 0:
        return ["--entry=" + value(rng, WORDS)]
    if kind == 1:
        return ["--devices=" + value(rng, INTEGERS)]
    if kind == 2:
        return ["--mesh-config=" + fx.any_input(rng, fx.config)]
    if kind == 3:
        return ["--seed=" + value(rng, INTEGERS)]
    if kind == 4:
        return ["--inputs=" + rng.choice(fx.input_dirs)]
    if kind == 5:
        return ["--outputs=" + (rng.choice(fx.output_dirs) if rng.random() < 0.7
                                else fx.new_output(rng))]
    if kind == 6:
        return ["--check" + value(rng, BOOLS)]
    if kind == 7:
        # Valid large counts run that many times: only the edges of the
        # range are tried.
        return ["--iters=" + rng.choice(["0", "-1", "1", "2", "1000001",
                                         "2147483648", "9223372036854775807",
                                         "-9223372036854775808", "x", ""])]
    if kind == 8:
        return ["--report=" + fx.any_output(rng)]
    if kind == 9:
        return ["--threads-per-device=" + value(rng, INTEGERS)]
    if kind == 10:
        return ["--mpi-timeout=" + value(rng, REALS)]
    if kind == 11:
        return ["--cpu-path=" + value(rng, WORDS)]
    if kind == 12:
        return ["--print-cpu-paths" + value(rng, BOOLS)]
    if kind == 13:
        return ["--load-dialect-plugin=" + fx.any_input(rng, "/nonexistent.so")]
    if kind == 14:
        return ["--debug-only=" + value(rng, WORDS)]
    if kind == 15:
        return ["@" + rng.choice(fx.responses)]
    return [rng.choice(["--no-such-flag", "-x", "--", "-", "--help-nothing",
                        "extra.mlir", "--entry", "--devices", "-devices=4",
                        "--check=true=false", "--seed=1=2"])]


def opt_flags(fx, rng):
    """One random flag of spmd-opt."""
    kind = rng.randrange(12)
    if kind == 0:
        return ["-o", fx.any_output(rng)]
    if kind == 1:
        return ["--spmd-mesh-config=file=" + fx.any_input(rng, fx.config)]
    if kind == 2:
        return ["--spmd-comm-report=output=" + fx.any_output(rng)]
    if kind == 3:
        return ["--spmd-visualize=output=" + fx.any_output(rng)]
    if kind == 4:
        return ["--spmd-propagate=strategy=" + value(rng, WORDS)]
    if kind == 5:
        return ["--pass-pipeline=" + rng.choice(
            ["builtin.module(spmd-pipeline)", "builtin.module(", "nosuch",
             "builtin.module(spmd-propagate{strategy=x})", "", "()"])]
    if kind == 6:
        return [rng.choice(["--split-input-file", "--verify-diagnostics",
                            "--verify-roundtrip", "--mlir-timing",
                            "--spmd-pipeline", "--canonicalize",
                            "--show-dialects", "--allow-unregistered-dialect"])
                + rng.choice(["", "", "=false", "=x"])]
    if kind == 7:
        return ["--mlir-timing-display=" + value(rng, WORDS)]
    if kind == 8:
        return ["--load-dialect-plugin=" + fx.any_input(rng, "/nonexistent.so")]
    if kind == 9:
        return ["--debug-only=" + value(rng, WORDS)]
    if kind == 10:
        return ["@" + rng.choice(fx.responses)]
    return [rng.choice(["--no-such-flag", "-x", "--", "--spmd-nothing",
                        "second.mlir", "-o", "--mlir-print-op-on-diagnostic=x"])]


ENVIRONMENT = {
    "SPMD_MAX_LOCAL_DEVICES": INTEGERS,
    "SPMD_MAX_TENSOR_BYTES": INTEGERS,
    "SPMD_MPI_TIMEOUT": REALS,
    "SPMD_CPU_PATH": WORDS,
    "SPMD_NUM_DEVICES": INTEGERS,
}


def make_case(fx, rng):
    """(argv without the tool, environment additions, tool name)."""
    env = {}
    for name, pool in ENVIRONMENT.items():
        if rng.random() < 0.12:
            env[name] = rng.choice(pool)
    # Arguments in groups (`-o FILE` stays together), the groups shuffled.
    if rng.random() < 0.65:
        tool = "spmd-run"
        groups = [[fx.any_input(rng, fx.program) if rng.random() < 0.25
                   else fx.program]]
        for _ in range(rng.randint(1, 3)):
            groups.append(run_flags(fx, rng))
    else:
        tool = "spmd-opt"
        groups = [[fx.any_input(rng, fx.opt_program) if rng.random() < 0.3
                   else fx.opt_program]]
        if rng.random() < 0.1:
            groups = [["-"]]
        for _ in range(rng.randint(1, 3)):
            groups.append(opt_flags(fx, rng))
    rng.shuffle(groups)
    return tool, [arg for group in groups for arg in group], env


# Failures known and not the tools' own, counted apart: (why, a test of
# the case, a part of its stderr).
KNOWN = [
    ("passes/VisualizePass.cpp writes its output= file unchecked",
     lambda tool, args: any(a.startswith("--spmd-visualize=output=")
                            for a in args),
     "IO failure on output stream"),
]

BAD_OUTPUT = ["LLVM ERROR", "Stack dump", "PLEASE submit a bug report",
              "AddressSanitizer", "LeakSanitizer", "runtime error:",
              "terminate called", "Segmentation fault", "Aborted"]


def judge(code, stderr, stdout):
    """Why a run failed, or None."""
    if code is None:
        return "timeout"
    if isinstance(code, str):
        return code
    if code < 0:
        return "signal %d" % -code
    if code not in (0, 1, 2):
        return "exit code %d" % code
    for bad in BAD_OUTPUT:
        if bad in stderr:
            return "stderr has '%s'" % bad
    # An error says so (exit 1 of spmd-run may be a failed check instead).
    if code in (1, 2) and "error:" not in stderr and \
            "check: FAIL" not in stdout:
        return "exit code %d without an error: line" % code
    return None


def case_programs(fx, index):
    """The copies of the programs case `index` reads."""
    folder = os.path.join(fx.root, "cases", str(index))
    return {"program": os.path.join(folder, "program.mlir"),
            "opt_program": os.path.join(folder, "valid.mlir")}


def resolve(fx, index, args):
    programs = case_programs(fx, index)
    def one(arg):
        for name, path in programs.items():
            arg = arg.replace("{%s}" % name, path)
        return arg
    return [one(arg) for arg in args]


def run_case(tools, fx, index, tool, args, env, timeout):
    full_env = dict(os.environ)
    full_env.update(env)
    programs = case_programs(fx, index)
    os.makedirs(os.path.dirname(programs["program"]))
    shutil.copy(UNARY, programs["program"])
    shutil.copy(VALID, programs["opt_program"])
    # Standard input is the program for `spmd-opt -`, else empty.
    stdin_path = VALID if "-" in args else os.devnull
    start = time.monotonic()
    with open(stdin_path, "rb") as stdin:
        try:
            proc = subprocess.run([tools[tool]] + resolve(fx, index, args),
                                  stdin=stdin, capture_output=True,
                                  timeout=timeout, env=full_env, cwd=fx.root)
            code = proc.returncode
            stderr = proc.stderr.decode("utf-8", "replace")
            stdout = proc.stdout.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            code = None
            stderr = (e.stderr or b"").decode("utf-8", "replace")
            stdout = ""
        except OSError as e:
            # Not the tool's failure, but one of the campaign: said as such.
            code = "not run"
            stderr, stdout = "cannot run the tool: %s" % e, ""
    return index, code, stderr, stdout, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spmd_opt")
    ap.add_argument("spmd_run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=20)
    ap.add_argument("--keep", default="")
    a = ap.parse_args()
    tools = {"spmd-opt": os.path.abspath(a.spmd_opt),
             "spmd-run": os.path.abspath(a.spmd_run)}
    keep = a.keep or tempfile.mkdtemp(prefix="flag-campaign-failures-")
    os.makedirs(keep, exist_ok=True)
    root = tempfile.mkdtemp(prefix="flag-campaign-")
    start = time.monotonic()
    try:
        fx = Fixture(root)
        rng = random.Random(a.seed)
        cases = [make_case(fx, rng) for _ in range(a.cases)]
        codes = collections.Counter()
        known = collections.Counter()
        failed = 0
        slowest = 0.0
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            futures = [pool.submit(run_case, tools, fx, i, tool, args, env,
                                   a.timeout)
                       for i, (tool, args, env) in enumerate(cases)]
            for future in concurrent.futures.as_completed(futures):
                index, code, stderr, stdout, seconds = future.result()
                slowest = max(slowest, seconds)
                tool, args, env = cases[index]
                codes["timeout" if code is None else code] += 1
                why = judge(code, stderr, stdout)
                if not why:
                    continue
                known_as = next((name for name, matches, part in KNOWN
                                 if matches(tool, args) and part in stderr),
                                None)
                if known_as:
                    known[known_as] += 1
                    continue
                failed += 1
                line = " ".join(["%s=%s" % (k, shlex.quote(v))
                                 for k, v in sorted(env.items())] +
                                [shlex.quote(tools[tool])] +
                                [shlex.quote(x)
                                 for x in resolve(fx, index, args)])
                # The fixture is removed at the end: the script says how
                # to make the case again.
                script = os.path.join(keep, "case-%d.sh" % index)
                with open(script, "w") as f:
                    f.write("#!/bin/sh\n# %s\n# case %d of: %s %s %s "
                            "--seed=%d --cases=%d\n# as run: %s\n" %
                            (why, index, sys.argv[0], tools["spmd-opt"],
                             tools["spmd-run"], a.seed, a.cases, line))
                print("FAIL case %d (%s): %s" % (index, why, line))
                print("  " + stderr.strip()[-400:].replace("\n", "\n  "))
        passed = a.cases - failed
        print("exit codes: " + ", ".join(
            "%s: %d" % (k, v) for k, v in sorted(codes.items(), key=str)))
        print("slowest case: %.1f s, all: %.1f s" %
              (slowest, time.monotonic() - start))
        for name, count in sorted(known.items()):
            print("known failures: %d (%s)" % (count, name))
        print("cases: %d passed, %d failed" % (passed - sum(known.values()),
                                               failed))
        if failed:
            print("failures kept in " + keep)
        return 1 if failed else 0
    finally:
        # The unreadable files are removed with the rest.
        for dirpath, dirnames, filenames in os.walk(root):
            for name in filenames + dirnames:
                path = os.path.join(dirpath, name)
                if not os.path.islink(path):
                    try:
                        os.chmod(path, stat.S_IRWXU)
                    except OSError:
                        pass
        shutil.rmtree(root, ignore_errors=True)
        if not a.keep and not os.listdir(keep):
            os.rmdir(keep)


if __name__ == "__main__":
    sys.exit(main())
