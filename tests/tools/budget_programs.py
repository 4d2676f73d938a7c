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
      matmuls whose weights are gathered, contractions with pending
      results, dense constant weights) with budgets from a quarter to three times the peak of their
      unbudgeted plan, and checks each as above. A budget no
      plan fits (the pass says so) is not an excess; the smallest budget
      the refusal names is then checked as above, and one byte less must
      be refused. Prints one line per
      excess and a summary `N programs, E excesses, F failures`.
  budget_programs.py emit KIND [--seed S]
      prints the program of KIND that `generate` would draw with seed S.
"""
import argparse
import json
import os
import random
import re
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
            # One error per function the budget is too small for.
            named = re.findall(r'the smallest that fits is (\d+) bytes',
                               opt.stderr)
            return 'nofit', 'budget=%d smallest=%s' % (
                budget, max(map(int, named)) if named else 'unnamed')
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


MESH = 'spmd.mesh @mesh = <["data"=2, "model"=2]>\n'
X_SHARDED = '{spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>}'


def matmul_chain(rng):
    """x @ w1 @ w2 ..., weights unannotated (gathered or split)."""
    m, dims = rng.choice([8, 16, 32]), [rng.choice([16, 32, 64])
                                         for _ in range(rng.randint(2, 4))]
    args = ['%%x: tensor<%dx%dxf32> %s' % (m, dims[0], X_SHARDED)]
    body, cur = ['  %z = arith.constant 0.0 : f32'], '%x'
    for i in range(len(dims) - 1):
        k, n = dims[i], dims[i + 1]
        args.append('%%w%d: tensor<%dx%dxf32>' % (i, k, n))
        body += ['  %%e%d = tensor.empty() : tensor<%dx%dxf32>' % (i, m, n),
                 '  %%f%d = linalg.fill ins(%%z : f32) outs(%%e%d : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>' % (i, i, m, n, m, n),
                 '  %%h%d = linalg.matmul ins(%s, %%w%d : tensor<%dx%dxf32>, tensor<%dx%dxf32>) outs(%%f%d : tensor<%dx%dxf32>) -> tensor<%dx%dxf32>'
                 % (i, cur, i, m, k, k, n, i, m, n, m, n)]
        cur = '%%h%d' % i
    n = dims[-1]
    return (MESH + 'func.func @main(%s) -> tensor<%dx%dxf32> {\n%s\n  return %s : tensor<%dx%dxf32>\n}\n'
            % (', '.join(args), m, n, '\n'.join(body), cur, m, n))


def table_lookup(rng):
    """An embedding table only a linalg body reads."""
    b, s, v, h = rng.choice([4, 8]), rng.choice([8, 16]), rng.choice([100, 500, 2000]), rng.choice([16, 32, 64])
    return MESH + """func.func @main(%%ids: tensor<%(b)dx%(s)dxi64> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                %%table: tensor<%(v)dx%(h)dxf32>) -> tensor<%(b)dx%(s)dx%(h)dxf32> {
  %%ee = tensor.empty() : tensor<%(b)dx%(s)dx%(h)dxf32>
  %%emb = linalg.generic {indexing_maps = [affine_map<(b, s, h) -> (b, s)>, affine_map<(b, s, h) -> (b, s, h)>],
                         iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%%ids : tensor<%(b)dx%(s)dxi64>) outs(%%ee : tensor<%(b)dx%(s)dx%(h)dxf32>) {
  ^bb0(%%id: i64, %%o: f32):
    %%i = arith.index_cast %%id : i64 to index
    %%hh = linalg.index 2 : index
    %%vv = tensor.extract %%table[%%i, %%hh] : tensor<%(v)dx%(h)dxf32>
    linalg.yield %%vv : f32
  } -> tensor<%(b)dx%(s)dx%(h)dxf32>
  return %%emb : tensor<%(b)dx%(s)dx%(h)dxf32>
}
""" % dict(b=b, s=s, v=v, h=h)


def convolution(rng):
    n, hw, c, f, k = 4, rng.choice([8, 14]), rng.choice([8, 16, 32]), rng.choice([16, 32, 64]), rng.choice([1, 3])
    stride = rng.choice([1, 2])
    o = (hw - k) // stride + 1
    return MESH + """func.func @main(%%x: tensor<%(n)dx%(hw)dx%(hw)dx%(c)dxf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}, {}, {}]>},
                %%w: tensor<%(k)dx%(k)dx%(c)dx%(f)dxf32>) -> tensor<%(n)dx%(o)dx%(o)dx%(f)dxf32> {
  %%z = arith.constant 0.0 : f32
  %%e = tensor.empty() : tensor<%(n)dx%(o)dx%(o)dx%(f)dxf32>
  %%fl = linalg.fill ins(%%z : f32) outs(%%e : tensor<%(n)dx%(o)dx%(o)dx%(f)dxf32>) -> tensor<%(n)dx%(o)dx%(o)dx%(f)dxf32>
  %%y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<%(stride)d> : tensor<2xi64>}
      ins(%%x, %%w : tensor<%(n)dx%(hw)dx%(hw)dx%(c)dxf32>, tensor<%(k)dx%(k)dx%(c)dx%(f)dxf32>) outs(%%fl : tensor<%(n)dx%(o)dx%(o)dx%(f)dxf32>) -> tensor<%(n)dx%(o)dx%(o)dx%(f)dxf32>
  return %%y : tensor<%(n)dx%(o)dx%(o)dx%(f)dxf32>
}
""" % dict(n=n, hw=hw, c=c, f=f, k=k, o=o, stride=stride)


def constant_weight(rng):
    """x @ transpose(W), W a dense constant the partitioner slices."""
    rows, cols = rng.choice([30, 60, 120]), rng.choice([100, 200])
    values = ', '.join('[%s]' % ', '.join('%.2f' % rng.uniform(-1, 1)
                                          for _ in range(cols))
                       for _ in range(rows))
    return MESH + """func.func @main(%%x: tensor<4x%(c)dxf32> %(xs)s) -> tensor<4x%(r)dxf32> {
  %%w = arith.constant dense<[%(values)s]> : tensor<%(r)dx%(c)dxf32>
  %%z = arith.constant 0.0 : f32
  %%et = tensor.empty() : tensor<%(c)dx%(r)dxf32>
  %%t = linalg.transpose ins(%%w : tensor<%(r)dx%(c)dxf32>) outs(%%et : tensor<%(c)dx%(r)dxf32>) permutation = [1, 0]
  %%e = tensor.empty() : tensor<4x%(r)dxf32>
  %%f = linalg.fill ins(%%z : f32) outs(%%e : tensor<4x%(r)dxf32>) -> tensor<4x%(r)dxf32>
  %%y = linalg.matmul ins(%%x, %%t : tensor<4x%(c)dxf32>, tensor<%(c)dx%(r)dxf32>) outs(%%f : tensor<4x%(r)dxf32>) -> tensor<4x%(r)dxf32>
  return %%y : tensor<4x%(r)dxf32>
}
""" % dict(r=rows, c=cols, values=values,
           xs='{spmd.sharding = #spmd.sharding<@mesh, [{}, {"data"}]>}')


def loop(rng):
    """Stacked weights read by a dynamic slice inside scf.for."""
    layers, d, m = rng.choice([2, 4]), rng.choice([32, 64, 128]), rng.choice([8, 16])
    return MESH + """func.func @main(%%x: tensor<%(m)dx%(d)dxf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                %%w: tensor<%(l)dx%(d)dx%(d)dxf32>) -> tensor<%(m)dx%(d)dxf32> {
  %%c0 = arith.constant 0 : index
  %%c1 = arith.constant 1 : index
  %%cl = arith.constant %(l)d : index
  %%z = arith.constant 0.0 : f32
  %%r = scf.for %%l = %%c0 to %%cl step %%c1 iter_args(%%h = %%x) -> (tensor<%(m)dx%(d)dxf32>) {
    %%wl = tensor.extract_slice %%w[%%l, 0, 0] [1, %(d)d, %(d)d] [1, 1, 1] : tensor<%(l)dx%(d)dx%(d)dxf32> to tensor<%(d)dx%(d)dxf32>
    %%e = tensor.empty() : tensor<%(m)dx%(d)dxf32>
    %%f = linalg.fill ins(%%z : f32) outs(%%e : tensor<%(m)dx%(d)dxf32>) -> tensor<%(m)dx%(d)dxf32>
    %%y = linalg.matmul ins(%%h, %%wl : tensor<%(m)dx%(d)dxf32>, tensor<%(d)dx%(d)dxf32>) outs(%%f : tensor<%(m)dx%(d)dxf32>) -> tensor<%(m)dx%(d)dxf32>
    scf.yield %%y : tensor<%(m)dx%(d)dxf32>
  }
  return %%r : tensor<%(m)dx%(d)dxf32>
}
""" % dict(l=layers, d=d, m=m)


def call(rng):
    """A layer called twice with the caller's weights."""
    m, d, h = rng.choice([8, 16]), rng.choice([32, 64, 128]), rng.choice([64, 128, 256])
    return MESH + """func.func private @layer(%%x: tensor<%(m)dx%(d)dxf32>, %%w1: tensor<%(d)dx%(h)dxf32>, %%w2: tensor<%(h)dx%(d)dxf32>) -> tensor<%(m)dx%(d)dxf32> {
  %%z = arith.constant 0.0 : f32
  %%e1 = tensor.empty() : tensor<%(m)dx%(h)dxf32>
  %%f1 = linalg.fill ins(%%z : f32) outs(%%e1 : tensor<%(m)dx%(h)dxf32>) -> tensor<%(m)dx%(h)dxf32>
  %%a = linalg.matmul ins(%%x, %%w1 : tensor<%(m)dx%(d)dxf32>, tensor<%(d)dx%(h)dxf32>) outs(%%f1 : tensor<%(m)dx%(h)dxf32>) -> tensor<%(m)dx%(h)dxf32>
  %%e2 = tensor.empty() : tensor<%(m)dx%(d)dxf32>
  %%f2 = linalg.fill ins(%%z : f32) outs(%%e2 : tensor<%(m)dx%(d)dxf32>) -> tensor<%(m)dx%(d)dxf32>
  %%b = linalg.matmul ins(%%a, %%w2 : tensor<%(m)dx%(h)dxf32>, tensor<%(h)dx%(d)dxf32>) outs(%%f2 : tensor<%(m)dx%(d)dxf32>) -> tensor<%(m)dx%(d)dxf32>
  return %%b : tensor<%(m)dx%(d)dxf32>
}
func.func @main(%%x: tensor<%(m)dx%(d)dxf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                %%w1: tensor<%(d)dx%(h)dxf32>, %%w2: tensor<%(h)dx%(d)dxf32>) -> tensor<%(m)dx%(d)dxf32> {
  %%y1 = func.call @layer(%%x, %%w1, %%w2) : (tensor<%(m)dx%(d)dxf32>, tensor<%(d)dx%(h)dxf32>, tensor<%(h)dx%(d)dxf32>) -> tensor<%(m)dx%(d)dxf32>
  %%y2 = func.call @layer(%%y1, %%w1, %%w2) : (tensor<%(m)dx%(d)dxf32>, tensor<%(d)dx%(h)dxf32>, tensor<%(h)dx%(d)dxf32>) -> tensor<%(m)dx%(d)dxf32>
  return %%y2 : tensor<%(m)dx%(d)dxf32>
}
""" % dict(m=m, d=d, h=h)


def contraction_t(rng):
    """x @ w^T as a generic (a strided operand), then a row sum: pending
    results resolved by all_reduce or reduce_scatter; the result's
    layout sometimes written."""
    m, k, n = rng.choice([8, 16, 32]), rng.choice([16, 32, 64]), rng.choice([16, 32, 64])
    out = rng.choice(['', ' {spmd.sharding = #spmd.sharding<@mesh, [{"model"}]>}',
                      ' {spmd.sharding = #spmd.sharding<@mesh, [{"data", "model"}]>}'])
    return MESH + """func.func @main(%%x: tensor<%(m)dx%(k)dxf32> %(xs)s, %%w: tensor<%(n)dx%(k)dxf32>) -> (tensor<%(m)dxf32>%(out)s) {
  %%z = arith.constant 0.0 : f32
  %%e = tensor.empty() : tensor<%(m)dx%(n)dxf32>
  %%f = linalg.fill ins(%%z : f32) outs(%%e : tensor<%(m)dx%(n)dxf32>) -> tensor<%(m)dx%(n)dxf32>
  %%h = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%%x, %%w : tensor<%(m)dx%(k)dxf32>, tensor<%(n)dx%(k)dxf32>) outs(%%f : tensor<%(m)dx%(n)dxf32>) {
  ^bb0(%%a: f32, %%b: f32, %%o: f32):
    %%p = arith.mulf %%a, %%b : f32
    %%s = arith.addf %%o, %%p : f32
    linalg.yield %%s : f32
  } -> tensor<%(m)dx%(n)dxf32>
  %%er = tensor.empty() : tensor<%(m)dxf32>
  %%fr = linalg.fill ins(%%z : f32) outs(%%er : tensor<%(m)dxf32>) -> tensor<%(m)dxf32>
  %%r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%%h : tensor<%(m)dx%(n)dxf32>) outs(%%fr : tensor<%(m)dxf32>) {
  ^bb0(%%a: f32, %%o: f32):
    %%s = arith.addf %%o, %%a : f32
    linalg.yield %%s : f32
  } -> tensor<%(m)dxf32>
  return %%r : tensor<%(m)dxf32>
}
""" % dict(m=m, k=k, n=n, out=out, xs=rng.choice([X_SHARDED, '']))


KINDS = {'contraction': contraction_t, 'matmul': matmul_chain, 'table': table_lookup, 'conv': convolution,
         'loop': loop, 'call': call, 'constant': constant_weight}


def unbudgeted_peak(spmd_opt, spmd_run, path, workdir, name):
    plan = os.path.join(workdir, name + '.free.mlir')
    report = os.path.join(workdir, name + '.free.json')
    if subprocess.run([spmd_opt, path, '--spmd-auto-shard', '-o', plan],
                      capture_output=True).returncode != 0:
        return None
    if subprocess.run([spmd_run, plan, '--report=' + report],
                      capture_output=True).returncode != 0:
        return None
    with open(report) as f:
        return max(json.load(f)['peak_buffer_bytes'])


def check_smallest(args, path, nofit_detail, workdir, name):
    """A refused budget names the smallest that fits: the plan for that
    budget must keep it, and one byte less must be refused."""
    named = re.search(r'smallest=(\d+)', nofit_detail)
    if not named:
        return 'fail', 'no smallest budget named: ' + nofit_detail
    smallest = int(named.group(1))
    verdict, detail = check_file(args.spmd_opt, args.spmd_run, path,
                                 smallest, workdir, name)
    if verdict != 'pass':
        return verdict if verdict != 'nofit' else 'fail', (
            'at the smallest budget named, %d: %s' % (smallest, detail))
    below, below_detail = check_file(args.spmd_opt, args.spmd_run, path,
                                     smallest - 1, workdir, name)
    if below != 'nofit':
        return 'fail', ('one byte below the smallest budget named, %d: %s %s'
                        % (smallest, below, below_detail))
    return 'nofit', nofit_detail


def main_generate(args):
    workdir = args.workdir or tempfile.mkdtemp(prefix='budget-')
    os.makedirs(workdir, exist_ok=True)
    rng = random.Random(args.seed)
    kinds = args.kinds.split(',') if args.kinds else sorted(KINDS)
    counts = {'pass': 0, 'excess': 0, 'nofit': 0, 'fail': 0}
    for case in range(args.cases):
        kind = rng.choice(kinds)
        name = '%s-%d' % (kind, case)
        path = os.path.join(workdir, name + '.mlir')
        with open(path, 'w') as f:
            f.write(KINDS[kind](rng))
        # Budgets from a quarter to three times the unbudgeted plan's peak.
        peak = unbudgeted_peak(args.spmd_opt, args.spmd_run, path, workdir,
                               name)
        if peak is None:
            counts['fail'] += 1
            print('FAIL %s: the unbudgeted plan does not run' % name)
            continue
        budget = int(peak * rng.uniform(0.25, 3.0))
        verdict, detail = check_file(args.spmd_opt, args.spmd_run, path,
                                     budget, workdir, name)
        if verdict == 'nofit':
            verdict, detail = check_smallest(args, path, detail, workdir,
                                             name)
        counts[verdict] += 1
        if verdict in ('excess', 'fail'):
            print('%s %s: %s' % (verdict.upper(), name, detail))
    print('%d programs, %d excesses, %d failures (%d within budget, %d '
          'refused: no plan fits)' % (args.cases, counts['excess'],
                                      counts['fail'], counts['pass'],
                                      counts['nofit']))
    return 1 if counts['excess'] or counts['fail'] else 0


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
    gen.add_argument('--kinds', help='comma-separated: ' + ','.join(KINDS))
    emit = sub.add_parser('emit')
    emit.add_argument('kind', choices=sorted(KINDS))
    emit.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    if args.mode == 'check':
        return main_check(args)
    if args.mode == 'emit':
        sys.stdout.write(KINDS[args.kind](random.Random(args.seed)))
        return 0
    return main_generate(args)


if __name__ == '__main__':
    sys.exit(main())
