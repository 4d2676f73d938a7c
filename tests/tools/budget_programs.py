#!/usr/bin/env python3
"""The memory budget of auto-sharding as a promise: peak <= budget.

Usage:
  budget_programs.py check SPMD_OPT SPMD_RUN FILE BUDGET [--workdir DIR]
      auto-shards FILE with memory-budget=BUDGET, runs the plan under
      `spmd-run --check --report` and prints
      `budget: PASS peak=P budget=B` when every device's peak_buffer_bytes
      is at most B and the check passes, else `budget: FAIL ...` (exit 1).
  budget_programs.py generate SPMD_OPT SPMD_RUN [--seed S] [--cases N]
      draws N programs (tables read in bodies, calls, loops, convolutions,
      matmuls whose weights are gathered) with budgets between their
      smallest and largest plan, and checks each as above. A budget no
      plan fits (the pass says so) is not an excess. Prints one line per
      excess and a summary `N programs, E excesses, F failures`.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile


def run_budget(spmd_opt, spmd_run, source, budget, workdir, name):
    """(verdict, detail): 'pass', 'excess', 'nofit' or 'fail'."""
    src = os.path.join(workdir, name + '.mlir')
    if source is not None:
        with open(src, 'w') as f:
            f.write(source)
    return check_file(spmd_opt, spmd_run, src, budget, workdir, name)


def check_file(spmd_opt, spmd_run, path, budget, workdir, name):
    plan = os.path.join(workdir, name + '.plan.mlir')
    report = os.path.join(workdir, name + '.report.json')
    opt = subprocess.run(
        [spmd_opt, path, '--spmd-auto-shard=memory-budget=%d' % budget,
         '-o', plan], capture_output=True, text=True, timeout=300)
    if opt.returncode != 0:
        if 'fits the memory budget' in opt.stderr:
            return 'nofit', 'budget=%d' % budget
        return 'fail', 'spmd-opt: ' + opt.stderr.strip()[-400:]
    run = subprocess.run([spmd_run, plan, '--check', '--report=' + report],
                         capture_output=True, text=True, timeout=600)
    if run.returncode != 0 or 'check: PASS' not in run.stdout:
        return 'fail', 'spmd-run: ' + (run.stdout + run.stderr).strip()[-400:]
    with open(report) as f:
        peaks = json.load(f)['peak_buffer_bytes']
    peak = max(peaks)
    detail = 'peak=%d budget=%d' % (peak, budget)
    return ('pass' if peak <= budget else 'excess'), detail


def main_check(args):
    workdir = args.workdir or tempfile.mkdtemp(prefix='budget-')
    os.makedirs(workdir, exist_ok=True)
    name = os.path.splitext(os.path.basename(args.file))[0]
    verdict, detail = check_file(args.spmd_opt, args.spmd_run, args.file,
                                 args.budget, workdir, name)
    # A budget no plan fits is said so: that keeps the promise too.
    word = {'pass': 'PASS', 'nofit': 'NOFIT'}.get(verdict, 'FAIL')
    print('budget: %s %s' % (word, detail))
    return 0 if verdict in ('pass', 'nofit') else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='mode', required=True)
    check = sub.add_parser('check')
    check.add_argument('spmd_opt')
    check.add_argument('spmd_run')
    check.add_argument('file')
    check.add_argument('budget', type=int)
    check.add_argument('--workdir')
    gen = sub.add_parser('generate')
    gen.add_argument('spmd_opt')
    gen.add_argument('spmd_run')
    gen.add_argument('--seed', type=int, default=1)
    gen.add_argument('--cases', type=int, default=20)
    gen.add_argument('--workdir')
    gen.add_argument('--keep-going', action='store_true')
    args = parser.parse_args()
    if args.mode == 'check':
        return main_check(args)
    return main_generate(args)


if __name__ == '__main__':
    sys.exit(main())
