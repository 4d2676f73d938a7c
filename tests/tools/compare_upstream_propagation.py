#!/usr/bin/env python3
"""Compares our propagation with upstream MLIR's on upstream's own tests.

Usage: compare_upstream_propagation.py SPMD_OPT MLIR_OPT TEST.mlir...

For each test file, runs upstream `mlir-opt` with the pipeline of the
file's RUN line, and `spmd-opt --spmd-import --spmd-propagate`. Then, op by
op in each function, compares the per-dimension split axes upstream
annotates each op result with (the `shard.shard` of the result) with ours
(`spmd.sharding_per_value`, mesh axes "axisN" being upstream grid axis N).
Values upstream leaves unannotated are not compared. Prints one line per
file and every difference; exits 1 if any differs or a tool fails.
The differences in DELIBERATE are choices of ours that move fewer bytes;
each must give exactly the sharding listed there.
"""
import re
import shlex
import subprocess
import sys

OP_RE = re.compile(r'^\s*(?:(%[\w.$-]+)(?::(\d+))?\s*=\s*)?"?([a-z_]+\.[\w.]+)"?')
SHARDING_RE = re.compile(r'^\s*(%[\w.$-]+) = shard\.sharding @[\w$.]+ split_axes = \[(.*)\]')
SHARD_RE = re.compile(r'^\s*(%[\w.$-]+) = shard\.shard (%[\w.$#-]+) to (%[\w.$-]+)( annotate_for_users)?')
FUNC_RE = re.compile(r'func\.func (?:private |public )?@([\w$.]+)')
PER_VALUE_RE = re.compile(r'spmd\.sharding = #spmd\.sharding_per_value<\[(.*?)\]>[,}]')

# (file, function, op index, result) -> (our sharding, why it differs).
_MEGATRON = ('two factors of the first matmul want the axis: upstream splits the '
             'contraction (a partial result, all-reduced, then the second matmul '
             'gathers it); the larger operand keeps it here, so the first matmul '
             'is column-split and meets the second row-split weight with no '
             'reshard between them (the Megatron pairing, as Shardy resolves it)')
DELIBERATE = {
    ('Shard_sharding-propagation.mlir', 'mlp_1d_weight_stationary', 0, 0):
        ([[], [], [0, 1, 2]], _MEGATRON),
    ('Shard_sharding-propagation.mlir', 'mlp_1d_weight_stationary', 1, 0):
        ([[], [], [0, 1, 2]], _MEGATRON),
}


def split_axes(text):
    """'[0], [1, 2], []' -> [[0], [1, 2], []]"""
    dims = re.findall(r'\[([^\[\]]*)\]', text)
    return [[int(a) for a in d.split(',') if a.strip()] for d in dims]


def strip(axes):
    while axes and not axes[-1]:
        axes = axes[:-1]
    return axes


def upstream_results(text):
    """{function: [(op name, [axes per result or None])]}"""
    functions, shardings, current, defs = {}, {}, None, {}
    for line in text.splitlines():
        m = FUNC_RE.search(line)
        if m and 'func.func' in line:
            current = functions.setdefault(m.group(1), [])
            defs = {}
            continue
        if current is None:
            continue
        m = SHARDING_RE.match(line)
        if m:
            shardings[m.group(1)] = split_axes(m.group(2))
            continue
        m = SHARD_RE.match(line)
        if m:
            if not m.group(4) and m.group(2) in defs:
                index, entry = defs[m.group(2)]
                entry[1][index] = strip(shardings.get(m.group(3), []))
            continue
        m = OP_RE.match(line)
        if not m or m.group(3).startswith(('shard.', 'func.return')):
            continue
        results = int(m.group(2) or (1 if m.group(1) else 0))
        entry = (m.group(3), [None] * results)
        current.append(entry)
        for i in range(results):
            name = m.group(1) if results == 1 else '%s#%d' % (m.group(1), i)
            defs[name] = (i, entry)
    return functions


def our_results(text):
    functions, current = {}, None
    for line in text.splitlines():
        m = FUNC_RE.search(line)
        if m and 'func.func' in line:
            current = functions.setdefault(m.group(1), [])
            continue
        if current is None:
            continue
        m = OP_RE.match(line)
        if not m or m.group(3).startswith(('spmd.', 'func.return')):
            continue
        results = int(m.group(2) or (1 if m.group(1) else 0))
        shardings = [None] * results
        pv = PER_VALUE_RE.search(line)
        if pv:
            values = re.findall(r'<@[\w$.]+, \[(.*?)\](?:, [a-z]+[^>]*)?>', pv.group(1))
            shardings = []
            for v in values:
                dims = re.findall(r'\{([^{}]*)\}', v)
                shardings.append(strip([[int(a) for a in re.findall(r'"axis(\d+)"', d)]
                                        for d in dims]))
        current.append((m.group(3), shardings))
    return functions


def run_line_args(path):
    lines = [l.split('RUN:', 1)[1].strip() for l in open(path) if 'RUN:' in l]
    command = ' '.join(l.rstrip('\\').strip() for l in lines).split('|')[0]
    return [a.replace('%s', path) for a in shlex.split(command)[1:]]


def main():
    spmd_opt, mlir_opt, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    failed = False
    total_compared = total_diff = 0
    for path in files:
        up = subprocess.run([mlir_opt] + run_line_args(path), capture_output=True,
                            text=True)
        ours = subprocess.run([spmd_opt, path, '--spmd-import', '--spmd-propagate'],
                              capture_output=True, text=True)
        name = path.rsplit('/', 1)[-1]
        if up.returncode != 0:
            print('%s: upstream fails, not compared' % name)
            continue
        if ours.returncode != 0:
            print('%s: spmd-opt failed:\n%s' % (name, ours.stderr))
            failed = True
            continue
        upstream, mine = upstream_results(up.stdout), our_results(ours.stdout)
        compared = differing = 0
        for function, ops in upstream.items():
            our_ops = mine.get(function, [])
            if [o[0] for o in ops] != [o[0] for o in our_ops]:
                print('%s: @%s: op sequences differ' % (name, function))
                failed = True
                continue
            for i, ((op, theirs), (_, ours_)) in enumerate(zip(ops, our_ops)):
                for r, expected in enumerate(theirs):
                    if expected is None:
                        continue
                    compared += 1
                    got = ours_[r] if r < len(ours_) else None
                    deliberate = DELIBERATE.get((name, function, i, r))
                    if deliberate and got == deliberate[0] and got != expected:
                        print('  @%s op %d (%s) result %d: upstream %s, ours %s '
                              '(deliberate: %s)' % (function, i, op, r, expected,
                                                    got, deliberate[1]))
                        continue
                    if got != expected:
                        differing += 1
                        print('  @%s op %d (%s) result %d: upstream %s, ours %s'
                              % (function, i, op, r, expected, got))
        print('%s: %d values compared, %d differ' % (name, compared, differing))
        total_compared += compared
        total_diff += differing
        failed = failed or differing > 0
    print('total: %d values compared, %d differ' % (total_compared, total_diff))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
