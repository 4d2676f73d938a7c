#!/usr/bin/env python3
"""End to end: spmd-run against eager PyTorch on CPU, one device.

Usage: end_to_end.py [SPMD_RUN] [--torch-python /usr/bin/python3] [--threads 1,2]
                     [--rounds 5] [--only NAME,...] [--corpus DIR] [--keep DIR] [--no-fail]

Programs:
  megatron_mlp      examples/megatron_mlp.mlir with its spmd annotations stripped
                    (one device): 64x1024 @ 1024x4096, ReLU, @ 4096x1024
  mlp_torch_3x1024  corpus mlp_torch_3x1024.mlir (torch-mlir, 3 layers, batch 256)
  resnet50_imex     corpus resnet50_imex.mlir (TF ResNet-50, NHWC, batch 1)
  resnet18_torch    corpus resnet18_torch.mlir (torch-mlir torchvision ResNet-18, NCHW,
                    batch 1; its elided weights as splats, see fill_elided)
Corpus files live in ../shared/corpus next to the repository (--corpus); a
missing one is reported as skipped.

The PyTorch side is torch_program.py: the same MLIR function translated op by
op into an eager PyTorch function (matmul as @, transposes as views, one torch
op per elementwise linalg.generic, splat constants as Python scalars, convs as
F.conv2d on channels_last views with weights converted at setup). It runs in a
worker process of --torch-python (default /usr/bin/python3, which has
python3-torch), started with OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and
MKL_NUM_THREADS set to the thread count before torch is imported, and
torch.set_num_threads. If that Python cannot import torch and numpy, the rows
are skipped (exit 0).

Equality first. The worker writes the inputs (uniform [-1, 1), fixed seed),
spmd-run reads them (--inputs) and writes its results (--outputs), and the
worker compares them with the translated function's on the same inputs:
every element within 1e-3 * |ref| + 5e-4 * max|ref| of spmd-run's, all finite
(a wrong translation is off by far more: tens of percent).
Three checks per program, the first two once (at the first thread count):
  extras    the program also returning the result of every matmul, conv,
            pooling, pad and reduction (intermediates: with splat weights the
            final outputs alone say little, e.g. ResNet-50's softmax is 0.001
            everywhere whatever the input)
  lifted    the same, with the weights (tensor constants the translation uses
            as tensors) made arguments whose values are the constant times a
            random factor in [0.5, 1.5), so channels differ and a wrong weight
            layout or permutation shows
  exact     the timed program itself, from the first timing round of each
            thread count
A row whose check fails shows MISMATCH and no ratio.

Timing. For each thread count T, --rounds rounds alternate the two tools:
spmd-run FILE --threads-per-device=T --warmup=1 --iters=K (its run_ms, the
median of K runs after one untimed run), then K calls of the torch function
after a warm-up call (their median): each tool's first call reorders the
convolution weights for oneDNN and touches its buffers, under torch.inference_mode(). The ratio is the median over rounds
of torch_ms / spmd_ms (above 1: spmd-run is faster). Target at every
thread count: >= 1.1 for each program. Exits 1 when a target is missed
(not with --no-fail), and always when a check fails or a tool errs.

CPU paths. The first line names the CPU and its widest vectors. On an
AVX-512 machine (unless SPMD_CPU_PATH is set) the whole run is repeated
with --cpu-path avx2, which holds both tools to AVX2 as on a CPU without
AVX-512: SPMD_CPU_PATH=avx2 and OPENBLAS_CORETYPE=Haswell for spmd-run,
and for PyTorch the same OpenBLAS setting, ATEN_CPU_CAPABILITY=avx2 and
DNNL_MAX_CPU_ISA=AVX2 (its oneDNN). The exit status covers both runs.
"""
import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TORCH_PROGRAM = os.path.join(HERE, "torch_program.py")

# name, file, where (repo or corpus), strip annotations, iterations per round, target
PROGRAMS = [
    ("megatron_mlp", "examples/megatron_mlp.mlir", "repo", True, 20, 1.1),
    ("mlp_torch_3x1024", "mlp_torch_3x1024.mlir", "corpus", False, 10, 1.1),
    ("resnet50_imex", "resnet50_imex.mlir", "corpus", False, 3, 1.1),
    ("resnet18_torch", "resnet18_torch.mlir", "corpus", False, 5, 1.1),
]

# What holds both tools to AVX2 on an AVX-512 machine, as on a CPU without
# it: our kernels, OpenBLAS (both link it), PyTorch's own kernels and its
# oneDNN.
AVX2_ENV = {"SPMD_CPU_PATH": "avx2", "OPENBLAS_CORETYPE": "Haswell",
            "ATEN_CPU_CAPABILITY": "avx2", "DNNL_MAX_CPU_ISA": "AVX2",
            "ONEDNN_MAX_CPU_ISA": "AVX2"}


def cpu_line():
    """The CPU's model and widest vectors (/proc/cpuinfo)."""
    model, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and model == "unknown CPU":
                    model = value.strip()
                elif key.strip() == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    isa = "AVX-512" if "avx512f" in flags else "AVX2 + FMA" if "avx2" in flags else "SSE"
    return model, isa


def strip_annotations(text):
    """The module for one device: no sharding attributes, no mesh, and
    sharding constraints replaced by their operand (a no-op cast)."""
    text = re.sub(r"\s*\{spmd\.sharding = #spmd\.sharding<[^{}]*(?:\{[^{}]*\}[^{}]*)*>\}", "",
                  text)
    text = re.sub(r"^\s*spmd\.mesh .*\n", "", text, flags=re.M)
    text = re.sub(r"spmd\.sharding_constraint\s+(%[\w.$-]+)\s*<.*?>\s*:\s*(tensor<[^>]*>)",
                  r"tensor.cast \1 : \2 to \2", text)
    if "spmd." in re.sub(r"//.*", "", text):
        raise RuntimeError("spmd annotations left after stripping")
    return text


def fill_elided(text):
    """Weights an exporter elided (dense_resource<__elided__>) as splats that
    keep activations in range through many layers: 1 / fan-in (all
    dimensions but the first) for filters and matrices, 0.5 for vectors
    (batch norm's scale, shift, mean and variance). The checks' lifted
    variant still scales each element differently."""
    def splat(m):
        dims = [int(d) for d in m.group(1).split("x")[:-1]]
        fan_in = 1
        for d in dims[1:]:
            fan_in *= d
        value = 0.5 if len(dims) == 1 else 1.0 / fan_in
        return "dense<%.9e> : tensor<%s>" % (value, m.group(1))
    return re.sub(r"dense_resource<__elided__>\s*:\s*tensor<([^>]*)>", splat, text)


class ToolError(Exception):
    pass


def busy_seconds():
    """CPU seconds the whole machine spent busy so far (/proc/stat: user, nice,
    system, irq, softirq, steal), or None."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:9]]
        return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def own_seconds():
    """CPU seconds of this process and its finished children."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total


def spmd_run(binary, mlir, threads, iters, inputs, outputs):
    os.makedirs(outputs, exist_ok=True)
    cmd = [binary, mlir, "--warmup=1", "--iters=%d" % iters,
           "--threads-per-device=%d" % threads,
           "--inputs=" + inputs, "--outputs=" + outputs]
    p = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"run_ms=([0-9.]+)\s+devices=(\d+)", p.stdout)
    if p.returncode != 0 or not m:
        raise ToolError("spmd-run failed (exit %d): %s" % (p.returncode,
                                                          (p.stderr or p.stdout).strip()[-2000:]))
    if int(m.group(2)) != 1:
        raise ToolError("spmd-run ran on %s devices, not 1" % m.group(2))
    return float(m.group(1))


class Worker:
    """torch_program.py --serve in --torch-python, threads fixed at start."""

    def __init__(self, python, threads):
        env = dict(os.environ)
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(threads)
        self.proc = subprocess.Popen([python, TORCH_PROGRAM, "--serve", "--threads",
                                      str(threads)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)

    def ask(self, **cmd):
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise ToolError("the torch worker exited (%s)" % self.proc.poll())
        reply = json.loads(line)
        if not reply.get("ok"):
            raise ToolError("torch: " + reply.get("error", "?") +
                            ("\n" + reply["trace"] if "trace" in reply else ""))
        return reply

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def torch_available(python):
    try:
        p = subprocess.run([python, "-c", "import torch, numpy"], capture_output=True)
    except OSError:
        return False
    return p.returncode == 0


def describe(rows):
    worst = max(rows, key=lambda r: r.get("max_abs_over_scale", float("inf")))
    if "max_abs" not in worst:
        return worst.get("why", "?")
    return ("%d outputs, max_abs=%.3g max_rel=%.3g max_abs/max|ref|=%.3g"
            % (len(rows), max(r["max_abs"] for r in rows), max(r["max_rel"] for r in rows),
               worst["max_abs_over_scale"]))


def check(worker, binary, mlir, folder, threads, name, label, log, **variant):
    """Runs one verification variant; returns True when it passes."""
    r = worker.ask(cmd="prepare", mlir=mlir, dir=folder, seed=1, **variant)
    if variant.get("lift") and r["lifted"] == 0:
        log.append("  %-17s %-7s same as extras (no tensor constants)" % (name, label))
        return True
    out = os.path.join(folder, "out")
    spmd_run(binary, r["mlir"], threads, 1, r["inputs"], out)
    c = worker.ask(cmd="compare", outputs=out)
    extra = " (%d weights as arguments)" % r["lifted"] if r["lifted"] else ""
    log.append("  %-17s %-7s %s: %s, %d thread(s)%s" % (
        name, label, "ok" if c["pass"] else "MISMATCH", describe(c["rows"]), threads, extra))
    return c["pass"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("spmd_run", nargs="?", default=os.path.join(ROOT, "build", "bin", "spmd-run"))
    p.add_argument("--torch-python", default="/usr/bin/python3")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--only", help="comma-separated program names")
    p.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "corpus"))
    p.add_argument("--keep", help="keep the programs, inputs, outputs in this folder")
    p.add_argument("--no-fail", action="store_true", help="exit 0 when a target is missed")
    p.add_argument("--cpu-path", choices=["avx2"],
                   help="hold both tools to AVX2 (default: the best path, then, on an "
                        "AVX-512 machine, a second run with --cpu-path avx2)")
    a = p.parse_args()
    model, isa = cpu_line()
    if a.cpu_path:
        os.environ.update(AVX2_ENV)
    print("CPU: %s (%s); spmd-run CPU path: %s%s" % (
        model, isa, os.environ.get("SPMD_CPU_PATH", "the best"),
        " (" + " ".join("%s=%s" % kv for kv in sorted(AVX2_ENV.items())) + ")"
        if a.cpu_path else ""), flush=True)
    status = run(a)
    if not a.cpu_path and isa == "AVX-512" and "SPMD_CPU_PATH" not in os.environ:
        print("\n=== the same on the AVX2 path ===", flush=True)
        again = subprocess.run([sys.executable, os.path.abspath(__file__)] + sys.argv[1:] +
                               ["--cpu-path", "avx2"])
        status = max(status, again.returncode)
    return status


def run(a):
    if not os.access(a.spmd_run, os.X_OK):
        print("spmd-run not found: %s" % a.spmd_run, file=sys.stderr)
        return 2
    threads = [int(t) for t in a.threads.split(",")]
    programs = [pr for pr in PROGRAMS if not a.only or pr[0] in a.only.split(",")]
    have_torch = torch_available(a.torch_python)
    if not have_torch:
        print("PyTorch: skipped (python3-torch not installed)")
    start = (time.time(), busy_seconds(), own_seconds())
    tmp = a.keep or tempfile.mkdtemp(prefix="end-to-end-")
    os.makedirs(tmp, exist_ok=True)
    failed = False          # a check failed or a tool erred
    rows, log = [], []
    paths = {}
    for name, rel, where, strip, iters, target in programs:
        path = os.path.join(ROOT if where == "repo" else a.corpus, rel)
        if not os.path.exists(path):
            paths[name] = None
            continue
        with open(path) as f:
            text = f.read()
        edited = fill_elided(strip_annotations(text) if strip else text)
        if edited != text:
            path = os.path.join(tmp, name + ".mlir")
            with open(path, "w") as g:
                g.write(edited)
        paths[name] = path
    try:
        for t in threads:
            worker = Worker(a.torch_python, t) if have_torch else None
            try:
                if worker:
                    info = worker.ask(cmd="info")
                    log.append("PyTorch %s (%s), torch.get_num_threads()=%d, %s" % (
                        info["torch"], a.torch_python, info["threads"],
                        " ".join("%s=%s" % kv for kv in sorted(info["env"].items()))))
                    print(log[-1], file=sys.stderr)
                for name, rel, where, strip, iters, target in programs:
                    tgt = target
                    if paths[name] is None:
                        rows.append((name, t, None, None, None, tgt, "skipped (file absent)"))
                        continue
                    if not have_torch:
                        rows.append((name, t, None, None, None, tgt, "skipped (no PyTorch)"))
                        continue
                    folder = os.path.join(tmp, "%s.t%d" % (name, t))
                    try:
                        ok = True
                        if t == threads[0]:
                            for label, variant in (("extras", {"extras": True}),
                                                   ("lifted", {"extras": True, "lift": True})):
                                ok &= check(worker, a.spmd_run, paths[name],
                                            os.path.join(folder, label), t, name, label, log,
                                            **variant)
                                print(log[-1], file=sys.stderr)
                        exact = worker.ask(cmd="prepare", mlir=paths[name],
                                           dir=os.path.join(folder, "exact"), seed=1)
                        out = os.path.join(folder, "exact", "out")
                        spmd_ms, torch_ms, ratios = [], [], []
                        for k in range(a.rounds):
                            spmd_ms.append(spmd_run(a.spmd_run, exact["mlir"], t, iters,
                                                    exact["inputs"], out))
                            if k == 0:
                                c = worker.ask(cmd="compare", outputs=out)
                                log.append("  %-17s %-7s %s: %s, %d thread(s)" % (
                                    name, "exact", "ok" if c["pass"] else "MISMATCH",
                                    describe(c["rows"]), t))
                                print(log[-1], file=sys.stderr)
                                ok &= c["pass"]
                                if not ok:
                                    break
                            torch_ms.append(worker.ask(cmd="time", iters=iters,
                                                       warmup=1)["ms"])
                            ratios.append(torch_ms[-1] / spmd_ms[-1])
                        if not ok:
                            failed = True
                            rows.append((name, t, None, None, None, tgt, "MISMATCH"))
                            continue
                        ratio = statistics.median(ratios)
                        rows.append((name, t, statistics.median(spmd_ms),
                                     statistics.median(torch_ms), ratio, tgt,
                                     ("-" if tgt is None else ("ok" if ratio >= tgt else "MISS"))
                                     + "  (rounds %.2f-%.2f)" % (min(ratios), max(ratios))))
                    except ToolError as e:
                        failed = True
                        log.append("  %s, %d threads: %s" % (name, t, e))
                        print(log[-1], file=sys.stderr)
                        rows.append((name, t, None, None, None, tgt, "ERROR"))
            finally:
                if worker:
                    worker.close()
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    if log:
        print("checks (the torch translation against spmd-run, same inputs):")
        print("\n".join(log))
    print("%-18s %7s %10s %10s %8s %7s  %s" % ("program", "threads", "spmd_ms", "torch_ms",
                                               "ratio", "target", ""))
    missed = False
    for name, t, s, tm, ratio, tgt, status in rows:
        if ratio is None:
            print("%-18s %7d %10s %10s %8s %7s  %s" % (name, t, "-", "-", "-",
                                                      "-" if tgt is None else "%.2f" % tgt,
                                                      status))
            continue
        print("%-18s %7d %10.2f %10.2f %8.2f %7s  %s" % (name, t, s, tm, ratio,
                                                         "-" if tgt is None else "%.2f" % tgt,
                                                         status))
        missed |= tgt is not None and ratio < tgt
    print("ratio = median over %d rounds of torch_ms / spmd_ms (above 1: spmd-run faster)"
          % a.rounds)
    if start[1] is not None:
        # What other processes took of the machine meanwhile: they slow both
        # tools, unequally (torch's OpenMP threads wait for a preempted one).
        wall = time.time() - start[0]
        others = (busy_seconds() - start[1]) - (own_seconds() - start[2])
        share = max(0.0, others) / (wall * (os.cpu_count() or 1))
        print("other processes used %.0f%% of the %d cores during the run%s"
              % (100 * share, os.cpu_count() or 1,
                 " (timings disturbed, above all at more than one thread)"
                 if share > 0.05 else ""))
    if failed:
        return 1
    return 1 if missed and not a.no_fail else 0


if __name__ == "__main__":
    sys.exit(main())
