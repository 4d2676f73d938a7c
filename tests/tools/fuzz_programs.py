#!/usr/bin/env python3
"""Random programs drawn from a grammar of the input language, partitioned
and run against the unpartitioned program.

Usage: fuzz_programs.py SPMD_RUN [--seed=S] [--cases=N] [--jobs=J]
                        [--keep=DIR] [--timeout=SEC] [--processes=P]
                        [--manual] [--nonlinear] [--auto-shard=SPMD_OPT]

Each program is a mesh of 1 to 8 devices (1 to 3 axes, sometimes permuted
device ids) and one function: a chain of 1 to 4 ops drawn from the
families below, on tensors of uneven sizes in every element type, with
random shardings (split, replicated, pending sums, maxima and minima of
either NaN rule) on arguments, results and intermediate values. Bodies of
linalg.generic ops are random scalar expressions over all their inputs,
loop positions and constants (NaN among them); reductions
have 1 to 3 reduced loops, any combiner, one or two results. So the
programs are not limited to what the partitioner's rules already know.

`spmd-run P --check` runs each program; a check failure, an error or a
crash is a failure. With --auto-shard=SPMD_OPT, every argument and result
annotation but one in two is dropped and `spmd-opt --spmd-auto-shard`
(repeated structures sharing their choice in one program of three, a
memory budget in one of four) chooses the shardings before the run; an
auto-sharding error other than a budget nothing fits is a failure. With --processes=P, programs whose device count P
divides run under `mpirun -np P` (each process its block of devices, the
collectives that cross processes through MPI); the others as usual. Manual
regions (spmd.manual_computation over all the mesh's axes or some: a body of
ops of every family and of every collective on manual axes, whose operands
are split over manual axes and free ones after them) are among the ops;
with --manual every program holds one. With --nonlinear,
the programs are instead contractions and row reductions split over a mesh
axis followed by chains of tanh, sigmoid, exp, log, erf, roots and
divisions, normalizations and recurrences (loops, and unrolled: what the check's slack for
reassociated sums must be carried through). Failing programs are kept (in --keep, or a temporary
folder that is printed). Ends with one line `fuzz: N passed, M failed` and
exits 1 if M > 0.
"""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

ALL_FLOATS = ("f32", "f64", "f16", "bf16")
FLOATS = list(ALL_FLOATS)  # the float types drawn (upstream_oracle.py narrows it)
INTS = ["i1", "i8", "i16", "i32", "i64"]
SIZES = [1, 2, 3, 4, 5, 6, 7, 8, 10]


def is_float(t):
    return t in ALL_FLOATS


def pick(rng, types):
    """One of `types`, floats only among those drawn."""
    return rng.choice([t for t in types if not is_float(t) or t in FLOATS] or types)


def width(t):
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "i1": 1, "i8": 8,
            "i16": 16, "i32": 32, "i64": 64}[t]


def ttype(shape, t):
    return "tensor<%s>" % "x".join([str(s) for s in shape] + [t])


def constant(name, value, t):
    """An arith.constant line (i1 constants are written without a type)."""
    if t == "i1":
        value = {"0": "false", "1": "true", "-1": "true"}.get(value, value)
        return "%s = arith.constant %s" % (name, value)
    return "%s = arith.constant %s : %s" % (name, value, t)


def zero(t):
    return "0.0" if is_float(t) else ("false" if t == "i1" else "0")


def one(t):
    return "1.0" if is_float(t) else ("true" if t == "i1" else "1")


class Program:
    """A function under construction: its arguments, ops and values."""

    def __init__(self, rng, mesh):
        self.rng = rng
        self.mesh = mesh  # [(name, size)]
        self.args = []    # (name, shape, type, attr)
        self.lines = []
        self.helpers = []
        self.counter = 0
        self.values = []  # (name, shape, type) of tensors made so far
        self.calls_allowed = True

    def fresh(self, prefix="v"):
        self.counter += 1
        return "%%%s%d" % (prefix, self.counter)

    def sharding(self, rank, allow_partial=True, t="f32"):
        rng = self.rng
        dims = [[] for _ in range(rank)]
        axes = [a for a, _ in self.mesh]
        rng.shuffle(axes)
        partial = []
        for a in axes:
            r = rng.random()
            if rank and r < 0.55:
                dims[rng.randrange(rank)].append(a)
            elif allow_partial and r < 0.65:
                partial.append(a)
        text = "[%s]" % ", ".join(
            "{%s}" % ", ".join('"%s"' % a for a in d) for d in dims)
        if partial:
            kind = rng.choice(["", "<max>", "<min>", "<maxnum>", "<minnum>"]
                              if t != "i1" else [""])
            if not is_float(t) and kind == "" and t == "i1":
                return "#spmd.sharding<@mesh, %s>" % text
            text += ", partial%s={%s}" % (kind, ", ".join('"%s"' % a for a in partial))
        return "#spmd.sharding<@mesh, %s>" % text

    def arg(self, shape, t, partial_ok=True):
        name = "%%a%d" % len(self.args)
        attr = ""
        if self.rng.random() < 0.8:
            attr = " {spmd.sharding = %s}" % self.sharding(
                len(shape), partial_ok and t != "i1", t)
        self.args.append((name, shape, t, attr))
        return name

    def emit(self, line):
        self.lines.append("  " + line)

    def tensor_value(self, shape=None, t=None):
        """An existing value of that shape and type, or a new argument."""
        rng = self.rng
        fits = [v for v in self.values
                if (shape is None or v[1] == shape) and (t is None or v[2] == t)]
        if fits and rng.random() < 0.7:
            return rng.choice(fits)
        if shape is None:
            shape = [rng.choice(SIZES) for _ in range(rng.randint(1, 3))]
        if t is None:
            t = rng.choice(FLOATS + INTS)
        return (self.arg(shape, t), shape, t)

    def add(self, name, shape, t):
        self.values.append((name, shape, t))
        # A constraint on an intermediate value now and then.
        if self.rng.random() < 0.15:
            c = self.fresh("c")
            self.emit("%s = spmd.sharding_constraint %s <@mesh, %s> : %s" % (
                c, name, self.sharding(len(shape), allow_partial=False)[len("#spmd.sharding<@mesh, "):-1],
                ttype(shape, t)))
            self.values.append((c, shape, t))
            return (c, shape, t)
        return (name, shape, t)

    def init(self, shape, t, identity):
        """An init tensor: the identity, another constant, or an argument."""
        r = self.rng.random()
        if r < 0.2:
            return self.arg(shape, t, partial_ok=False)
        value = identity if r < 0.8 else (one(t) if is_float(t) or t != "i1" else "false")
        e, f, c = self.fresh("e"), self.fresh("f"), self.fresh("k")
        self.emit(constant(c, value, t))
        self.emit("%s = tensor.empty() : %s" % (e, ttype(shape, t)))
        self.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
            f, c, t, e, ttype(shape, t), ttype(shape, t)))
        return f


class Body:
    """A random scalar expression over block arguments and loop positions."""

    def __init__(self, rng, program, loops):
        self.rng = rng
        self.program = program
        self.lines = []
        self.loops = loops
        self.n = 0

    def fresh(self):
        self.n += 1
        return "%%s%d" % self.n

    def emit(self, line):
        self.lines.append("    " + line)

    def const(self, value, t):
        name = self.fresh()
        self.emit(constant(name, value, t))
        return name

    def cast(self, v, frm, to):
        if frm == to:
            return v
        name = self.fresh()
        if is_float(frm) and is_float(to):
            op = "arith.extf" if width(to) > width(frm) or (frm == "bf16" and to == "f32") else "arith.truncf"
            if frm in ("f16", "bf16") and to in ("f16", "bf16"):
                mid = self.cast(v, frm, "f32")
                return self.cast(mid, "f32", to)
            self.emit("%s = %s %s : %s to %s" % (name, op, v, frm, to))
        elif is_float(frm):
            self.emit("%s = arith.fptosi %s : %s to %s" % (name, v, frm, to))
        elif is_float(to):
            if frm == "i1":
                self.emit("%s = arith.uitofp %s : %s to %s" % (name, v, frm, to))
            else:
                self.emit("%s = arith.sitofp %s : %s to %s" % (name, v, frm, to))
        else:
            if width(to) > width(frm):
                op = "arith.extui" if frm == "i1" else "arith.extsi"
                self.emit("%s = %s %s : %s to %s" % (name, op, v, frm, to))
            else:
                self.emit("%s = arith.trunci %s : %s to %s" % (name, v, frm, to))
        return name

    def position(self, t):
        """A loop position, as a value of type t."""
        loop = self.rng.choice(self.loops)
        i = self.fresh()
        self.emit("%s = linalg.index %d : index" % (i, loop))
        j = self.fresh()
        self.emit("%s = arith.index_cast %s : index to i32" % (j, i))
        return self.cast(j, "i32", t)

    def captured(self, t):
        """An element of a tensor defined outside the body, read at loop
        positions (a table lookup)."""
        rng = self.rng
        shape = [rng.choice(SIZES) for _ in range(rng.randint(1, 2))]
        et = rng.choice(FLOATS + INTS)
        table = self.program.tensor_value(shape, et)[0]
        indices = []
        for size in shape:
            i, m, r = self.fresh(), self.fresh(), self.fresh()
            self.emit("%s = linalg.index %d : index" % (i, rng.choice(self.loops)))
            self.emit("%s = arith.constant %d : index" % (m, size))
            self.emit("%s = arith.remui %s, %s : index" % (r, i, m))
            indices.append(r)
        v = self.fresh()
        self.emit("%s = tensor.extract %s[%s] : %s" % (v, table, ", ".join(indices),
                                                      ttype(shape, et)))
        return self.cast(v, et, t)

    def expr(self, leaves, t, depth):
        """A value of type t from leaves [(name, type)]."""
        rng = self.rng
        if depth == 0 or rng.random() < 0.3:
            r = rng.random()
            if r < 0.15 and self.loops:
                return self.position(t)
            if r < 0.2 and self.loops:
                return self.captured(t)
            if r < 0.27:
                return self.const(rng.choice(["0.5", "-2.0", "3.0", NAN_OF[t]]) if is_float(t)
                                  else ("true" if t == "i1" else rng.choice(["1", "2", "-1"])), t)
            name, lt = rng.choice(leaves)
            return self.cast(name, lt, t)
        if is_float(t):
            kind = rng.choice(["unary", "binary", "binary", "select", "div", "causal"])
            if kind == "unary":
                a = self.expr(leaves, t, depth - 1)
                op = rng.choice(["math.exp", "arith.negf", "math.absf", "math.tanh",
                                 "log1p", "math.sin"])
                name = self.fresh()
                if op == "log1p":
                    b = self.fresh()
                    self.emit("%s = math.absf %s : %s" % (b, a, t))
                    self.emit("%s = math.log1p %s : %s" % (name, b, t))
                elif op == "math.exp":
                    b = self.fresh()
                    self.emit("%s = math.tanh %s : %s" % (b, a, t))
                    self.emit("%s = math.exp %s : %s" % (name, b, t))
                else:
                    self.emit("%s = %s %s : %s" % (name, op, a, t))
                return name
            if kind == "binary":
                a, b = self.expr(leaves, t, depth - 1), self.expr(leaves, t, depth - 1)
                op = rng.choice(["arith.addf", "arith.subf", "arith.mulf",
                                 "arith.maximumf", "arith.minimumf"])
                name = self.fresh()
                self.emit("%s = %s %s, %s : %s" % (name, op, a, b, t))
                return name
            if kind == "div":
                a, b = self.expr(leaves, t, depth - 1), self.expr(leaves, t, depth - 1)
                c, d, two, name = self.fresh(), self.fresh(), self.const("2.0", t), self.fresh()
                self.emit("%s = math.absf %s : %s" % (c, b, t))
                self.emit("%s = arith.addf %s, %s : %s" % (d, c, two, t))
                self.emit("%s = arith.divf %s, %s : %s" % (name, a, d, t))
                return name
            if kind == "causal" and len(self.loops) >= 2:
                l0, l1 = rng.sample(self.loops, 2)
                i, j, c = self.fresh(), self.fresh(), self.fresh()
                self.emit("%s = linalg.index %d : index" % (i, l0))
                self.emit("%s = linalg.index %d : index" % (j, l1))
                self.emit("%s = arith.cmpi ule, %s, %s : index" % (c, j, i))
                a = self.expr(leaves, t, depth - 1)
                neg = self.const("-3.0", t)
                name = self.fresh()
                self.emit("%s = arith.select %s, %s, %s : %s" % (name, c, a, neg, t))
                return name
            a, b = self.expr(leaves, t, depth - 1), self.expr(leaves, t, depth - 1)
            c, name = self.fresh(), self.fresh()
            self.emit("%s = arith.cmpf %s, %s, %s : %s" % (
                c, rng.choice(["olt", "oge", "une"]), a, b, t))
            x, y = self.expr(leaves, t, depth - 1), self.expr(leaves, t, depth - 1)
            self.emit("%s = arith.select %s, %s, %s : %s" % (name, c, x, y, t))
            return name
        # Integers.
        kind = rng.choice(["binary", "binary", "select", "cmp"])
        if kind == "binary" or t == "i1" and kind == "cmp":
            a, b = self.expr(leaves, t, depth - 1), self.expr(leaves, t, depth - 1)
            ops = ["arith.andi", "arith.ori", "arith.xori"] if t == "i1" else \
                ["arith.addi", "arith.subi", "arith.muli", "arith.maxsi", "arith.minsi",
                 "arith.andi", "arith.xori"]
            name = self.fresh()
            self.emit("%s = %s %s, %s : %s" % (name, rng.choice(ops), a, b, t))
            return name
        if kind == "cmp":
            a, b = self.expr(leaves, "i32", depth - 1), self.expr(leaves, "i32", depth - 1)
            c = self.fresh()
            self.emit("%s = arith.cmpi %s, %s, %s : i32" % (c, rng.choice(["slt", "eq", "sge"]), a, b))
            return self.cast(c, "i1", t)
        a, b = self.expr(leaves, t, depth - 1), self.expr(leaves, t, depth - 1)
        c, name = self.fresh(), self.fresh()
        p = self.expr(leaves, "i1", depth - 1)
        self.emit("%s = arith.select %s, %s, %s : %s" % (name, p, a, b, t))
        return name


# Quiet NaNs, so that reductions and collectives meet them.
NAN_OF = {"f32": "0x7FC00000", "f64": "0x7FF8000000000000", "f16": "0x7E00", "bf16": "0x7FC0"}

COMBINERS = {
    "float": [("arith.addf", "0.0"), ("arith.maximumf", "-3.0e38"),
              ("arith.minimumf", "3.0e38"), ("arith.maxnumf", "-3.0e38"),
              ("arith.minnumf", "3.0e38"), ("arith.mulf", "1.0")],
    "int": [("arith.addi", "0"), ("arith.maxsi", "MIN"), ("arith.minsi", "MAX"),
            ("arith.muli", "1"), ("arith.andi", "-1"), ("arith.ori", "0")],
    "i1": [("arith.andi", "true"), ("arith.ori", "false"), ("arith.xori", "false")],
}


def int_identity(value, t):
    bits = width(t)
    if value == "MIN":
        return str(-(1 << (bits - 1)))
    if value == "MAX":
        return str((1 << (bits - 1)) - 1)
    return value


def affine(dims, loops):
    return "affine_map<(%s) -> (%s)>" % (", ".join("d%d" % i for i in range(loops)),
                                         ", ".join(dims))


def gen_generic(p):
    """A linalg.generic: elementwise or reducing, 1-3 inputs, 1-2 results."""
    rng = p.rng
    loops = [rng.choice(SIZES) for _ in range(rng.randint(1, 4))]
    nred = 0 if rng.random() < 0.35 else rng.randint(1, min(3, len(loops)))
    red = set(rng.sample(range(len(loops)), nred))
    inputs = []
    for _ in range(rng.randint(1, 3)):
        # Each input reads a subset of the loops (the rest broadcast), in
        # some order; reduced loops are read by at least the first input.
        used = [l for l in range(len(loops)) if l in red and not inputs or rng.random() < 0.8]
        if not used:
            used = [rng.randrange(len(loops))]
        if rng.random() < 0.3:
            rng.shuffle(used)
        t = rng.choice(FLOATS + INTS)
        name, _, _ = p.tensor_value([loops[l] for l in used], t)
        inputs.append((name, used, t))
    out_loops = [l for l in range(len(loops)) if l not in red]
    if rng.random() < 0.3:
        rng.shuffle(out_loops)
    out_shape = [loops[l] for l in out_loops]
    results = []
    for _ in range(1 if rng.random() < 0.75 else 2):
        t = rng.choice(FLOATS + INTS)
        if red:
            family = "float" if is_float(t) else ("i1" if t == "i1" else "int")
            op, identity = rng.choice(COMBINERS[family])
            identity = int_identity(identity, t) if family == "int" else identity
        else:
            op, identity = None, zero(t)
        results.append((t, op, identity))
    inits = [p.init(out_shape, t, ident) for t, op, ident in results]
    body = Body(rng, p, list(range(len(loops))))
    args = ["%%in%d" % i for i in range(len(inputs))]
    outs = ["%%out%d" % i for i in range(len(results))]
    leaves = [(a, t) for a, (_, _, t) in zip(args, inputs)]
    yields = []
    for (t, op, _), out in zip(results, outs):
        v = body.expr(leaves, t, rng.randint(1, 3))
        if op:
            if rng.random() < 0.5:
                name = body.fresh()
                body.emit("%s = %s %s, %s : %s" % (name, op, v, out, t))
            else:  # the accumulator on the left
                name = body.fresh()
                body.emit("%s = %s %s, %s : %s" % (name, op, out, v, t))
            v = name
        yields.append((v, t))
    maps = [affine(["d%d" % l for l in used], len(loops)) for _, used, _ in inputs]
    maps += [affine(["d%d" % l for l in out_loops], len(loops))] * len(results)
    iters = ", ".join('"reduction"' if l in red else '"parallel"' for l in range(len(loops)))
    names = [p.fresh("g") for _ in results]
    lhs = names[0] if len(names) == 1 else "%s:%d" % (names[0], len(names))
    p.emit("%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}" % (
        lhs, ", ".join(maps), iters))
    p.emit("    ins(%s : %s) outs(%s : %s) {" % (
        ", ".join(n for n, _, _ in inputs),
        ", ".join(ttype([loops[l] for l in used], t) for _, used, t in inputs),
        ", ".join(inits), ", ".join(ttype(out_shape, t) for t, _, _ in results)))
    p.emit("^bb0(%s):" % ", ".join(
        ["%s: %s" % (a, t) for a, (_, _, t) in zip(args, inputs)] +
        ["%s: %s" % (o, t) for o, (t, _, _) in zip(outs, results)]))
    p.lines.extend(body.lines)
    p.emit("  linalg.yield %s : %s" % (", ".join(v for v, _ in yields),
                                       ", ".join(t for _, t in yields)))
    p.emit("} -> (%s)" % ", ".join(ttype(out_shape, t) for t, _, _ in results))
    made = []
    for i, (t, _, _) in enumerate(results):
        name = names[0] if len(names) == 1 else "%s#%d" % (names[0], i)
        made.append(p.add(name, out_shape, t))
    return made[-1]


def gen_argmax(p):
    """Argmax over 1-2 reduced loops: a value and a position, one select
    combiner for both results."""
    rng = p.rng
    shape = [rng.choice(SIZES) for _ in range(rng.randint(2, 3))]
    t = pick(rng, ["f32", "f64", "bf16", "i32"])
    x = p.tensor_value(shape, t)[0]
    red = sorted(rng.sample(range(len(shape)), rng.randint(1, len(shape) - 1)))
    keep = [d for d in range(len(shape)) if d not in red]
    out = [shape[d] for d in keep]
    low = "-3.0e38" if is_float(t) else "-2147483648"
    best = p.init(out, t, low)
    where = p.init(out, "i32", "0")
    loops = len(shape)
    maps = [affine(["d%d" % d for d in range(loops)], loops)] + \
        [affine(["d%d" % d for d in keep], loops)] * 2
    iters = ", ".join('"reduction"' if d in red else '"parallel"' for d in range(loops))
    name = p.fresh("g")
    cmp = "arith.cmpf ogt," if is_float(t) else "arith.cmpi sgt,"
    p.emit("%s:2 = linalg.generic {indexing_maps = [%s], iterator_types = [%s]}" % (name, ", ".join(maps), iters))
    p.emit("    ins(%s : %s) outs(%s, %s : %s, %s) {" % (
        x, ttype(shape, t), best, where, ttype(out, t), ttype(out, "i32")))
    p.emit("^bb0(%%ax: %s, %%am: %s, %%ak: i32):" % (t, t))
    p.emit("  %%aj = linalg.index %d : index" % red[-1])
    p.emit("  %aji = arith.index_cast %aj : index to i32")
    p.emit("  %%agt = %s %%ax, %%am : %s" % (cmp, t))
    p.emit("  %%anm = arith.select %%agt, %%ax, %%am : %s" % t)
    p.emit("  %ank = arith.select %agt, %aji, %ak : i32")
    p.emit("  linalg.yield %%anm, %%ank : %s, i32" % t)
    p.emit("} -> (%s, %s)" % (ttype(out, t), ttype(out, "i32")))
    p.add(name + "#0", out, t)
    return p.add(name + "#1", out, "i32")


def gen_named(p):
    rng = p.rng
    kind = rng.choice(["matmul", "batch_matmul", "dot", "matvec", "vecmat",
                       "softmax", "transpose", "broadcast", "reduce", "conv",
                       "pool", "depthwise"])
    t = pick(rng, ["f32", "f64", "f16", "bf16", "i32", "i64"]) \
        if kind not in ("softmax", "conv", "pool", "depthwise") else pick(rng, ["f32", "f64"])
    m, k, n, b = (rng.choice(SIZES) for _ in range(4))
    name = p.fresh("n")
    if kind in ("matmul", "batch_matmul", "dot", "matvec", "vecmat"):
        shapes = {"matmul": ([m, k], [k, n], [m, n]),
                  "batch_matmul": ([b, m, k], [b, k, n], [b, m, n]),
                  "dot": ([k], [k], []), "matvec": ([m, k], [k], [m]),
                  "vecmat": ([k], [k, n], [n])}[kind]
        x = p.tensor_value(shapes[0], t)[0]
        y = p.tensor_value(shapes[1], t)[0]
        init = p.init(shapes[2], t, zero(t))
        p.emit("%s = linalg.%s ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            name, kind, x, y, ttype(shapes[0], t), ttype(shapes[1], t), init,
            ttype(shapes[2], t), ttype(shapes[2], t)))
        return p.add(name, shapes[2], t)
    if kind == "softmax":
        shape = [m, n] if rng.random() < 0.7 else [b, m, n]
        x = p.tensor_value(shape, t)[0]
        d = rng.randrange(len(shape))
        e = p.fresh("e")
        p.emit("%s = tensor.empty() : %s" % (e, ttype(shape, t)))
        p.emit("%s = linalg.softmax dimension(%d) ins(%s : %s) outs(%s : %s) -> %s" % (
            name, d, x, ttype(shape, t), e, ttype(shape, t), ttype(shape, t)))
        return p.add(name, shape, t)
    if kind == "transpose":
        shape = [m, k, n][:rng.randint(2, 3)]
        perm = list(range(len(shape)))
        rng.shuffle(perm)
        x = p.tensor_value(shape, t)[0]
        out = [shape[i] for i in perm]
        e = p.fresh("e")
        p.emit("%s = tensor.empty() : %s" % (e, ttype(out, t)))
        p.emit("%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [%s]" % (
            name, x, ttype(shape, t), e, ttype(out, t), ", ".join(map(str, perm))))
        return p.add(name, out, t)
    if kind == "broadcast":
        x = p.tensor_value([m], t)[0]
        d = rng.randrange(2)
        out = [n, m] if d == 0 else [m, n]
        e = p.fresh("e")
        p.emit("%s = tensor.empty() : %s" % (e, ttype(out, t)))
        p.emit("%s = linalg.broadcast ins(%s : %s) outs(%s : %s) dimensions = [%d]" % (
            name, x, ttype([m], t), e, ttype(out, t), d))
        return p.add(name, out, t)
    if kind == "reduce":
        shape = [m, k, n][:rng.randint(1, 3)]
        dims = sorted(rng.sample(range(len(shape)), rng.randint(1, len(shape))))
        out = [s for i, s in enumerate(shape) if i not in dims]
        family = "float" if is_float(t) else "int"
        op, ident = rng.choice(COMBINERS[family])
        ident = int_identity(ident, t) if family == "int" else ident
        x = p.tensor_value(shape, t)[0]
        init = p.init(out, t, ident)
        p.emit("%s = linalg.reduce ins(%s : %s) outs(%s : %s) dimensions = [%s]" % (
            name, x, ttype(shape, t), init, ttype(out, t), ", ".join(map(str, dims))))
        p.emit("  (%%x: %s, %%acc: %s) {" % (t, t))
        if rng.random() < 0.5 and is_float(t):
            p.emit("    %%w = math.absf %%x : %s" % t)
            p.emit("    %%r = %s %%w, %%acc : %s" % (op, t))
        else:
            p.emit("    %%r = %s %%x, %%acc : %s" % (op, t))
        p.emit("    linalg.yield %%r : %s" % t)
        p.emit("  }")
        return p.add(name, out, t)
    # Windows: NHWC images.
    h, w, c = rng.choice([5, 6, 7, 9]), rng.choice([4, 5, 8]), rng.choice([1, 2, 3])
    kh, kw, s = rng.choice([1, 2, 3]), rng.choice([1, 2]), rng.choice([1, 2])
    oh, ow = (h - kh) // s + 1, (w - kw) // s + 1
    img = p.tensor_value([b, h, w, c], t)[0]
    strides = "{dilations = dense<1> : tensor<2xi64>, strides = dense<%d> : tensor<2xi64>}" % s
    if kind == "conv":
        f = rng.choice([1, 2, 4])
        flt = p.tensor_value([kh, kw, c, f], t)[0]
        out = [b, oh, ow, f]
        init = p.init(out, t, zero(t))
        p.emit("%s = linalg.conv_2d_nhwc_hwcf %s ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            name, strides, img, flt, ttype([b, h, w, c], t), ttype([kh, kw, c, f], t),
            init, ttype(out, t), ttype(out, t)))
    elif kind == "depthwise":
        flt = p.tensor_value([kh, kw, c], t)[0]
        out = [b, oh, ow, c]
        init = p.init(out, t, zero(t))
        p.emit("%s = linalg.depthwise_conv_2d_nhwc_hwc %s ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            name, strides, img, flt, ttype([b, h, w, c], t), ttype([kh, kw, c], t),
            init, ttype(out, t), ttype(out, t)))
    else:
        op, ident = rng.choice([("max", "-3.0e38"), ("sum", "0.0")])
        win = p.fresh("w")
        p.emit("%s = tensor.empty() : %s" % (win, ttype([kh, kw], t)))
        out = [b, oh, ow, c]
        init = p.init(out, t, ident)
        p.emit("%s = linalg.pooling_nhwc_%s %s ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
            name, op, strides, img, win, ttype([b, h, w, c], t), ttype([kh, kw], t),
            init, ttype(out, t), ttype(out, t)))
    return p.add(name, out, t)


def gen_tensor(p):
    rng = p.rng
    kind = rng.choice(["extract", "gather", "insert_slice", "extract_slice",
                       "concat", "pad", "reshape", "embedding", "insert"])
    t = rng.choice(FLOATS + INTS)
    m, n = rng.choice(SIZES[1:]), rng.choice(SIZES[1:])
    name = p.fresh("t")
    if kind in ("extract", "insert"):
        x, shape, t = p.tensor_value([m, n], t)
        idx = p.fresh("i")
        # A position from data: an index argument (0 or 1) plus a constant.
        k = p.arg([], "index", partial_ok=False) if False else None
        c = p.fresh("c")
        if rng.random() < 0.5:
            # A position from data: an integer (0 or 1) plus a constant.
            pos = p.tensor_value([2], "i32")[0]
            z, d, o = p.fresh("c"), p.fresh("d"), p.fresh("c")
            p.emit("%s = arith.constant 0 : index" % z)
            p.emit("%s = tensor.extract %s[%s] : %s" % (d, pos, z, ttype([2], "i32")))
            p.emit("%s = arith.constant %d : i32" % (o, rng.randrange(m - 1) if m > 1 else 0))
            q, r = p.fresh("d"), p.fresh("d")
            p.emit("%s = arith.addi %s, %s : i32" % (q, d, o))
            p.emit("%s = arith.index_cast %s : i32 to index" % (c, q))
        else:
            p.emit("%s = arith.constant %d : index" % (c, rng.randrange(m)))
        j = p.fresh("c")
        p.emit("%s = arith.constant %d : index" % (j, rng.randrange(n)))
        if kind == "extract":
            p.emit("%s = tensor.extract %s[%s, %s] : %s" % (name, x, c, j, ttype(shape, t)))
            e = p.fresh("e")
            p.emit("%s = tensor.splat %s : %s" % (e, name, ttype([3], t)))
            return p.add(e, [3], t)
        v = p.fresh("c")
        p.emit(constant(v, one(t), t))
        p.emit("%s = tensor.insert %s into %s[%s, %s] : %s" % (name, v, x, c, j, ttype(shape, t)))
        return p.add(name, shape, t)
    if kind == "gather":
        src, shape, t = p.tensor_value([m, n], t)
        cnt = rng.choice(SIZES)
        ids = p.tensor_value([cnt, 1], "i32")[0]
        out = [cnt, n] if rng.random() < 0.5 else [cnt, 1, n]
        p.emit("%s = tensor.gather %s[%s] gather_dims([0])%s : (%s, %s) -> %s" % (
            name, src, ids, " unique" if len(out) == 2 else "", ttype(shape, t),
            ttype([cnt, 1], "i32"), ttype(out, t)))
        return p.add(name, out, t)
    if kind == "embedding":
        table, tshape, t = p.tensor_value([m, n], t)
        bsz = rng.choice(SIZES)
        ids = p.tensor_value([bsz], "i64")[0]
        out = [bsz, n]
        e = p.fresh("e")
        p.emit("%s = tensor.empty() : %s" % (e, ttype(out, t)))
        p.emit("%s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]}" % name)
        p.emit("    ins(%s : %s) outs(%s : %s) {" % (ids, ttype([bsz], "i64"), e, ttype(out, t)))
        p.emit("^bb0(%%eid: i64, %%eo: %s):" % t)
        p.emit("  %ei0 = arith.index_cast %eid : i64 to index")
        p.emit("  %eb = linalg.index 0 : index")
        p.emit("  %ec3 = arith.constant 3 : index")
        p.emit("  %%ecm = arith.constant %d : index" % m)
        p.emit("  %eb3 = arith.muli %eb, %ec3 : index")
        p.emit("  %ei1 = arith.addi %ei0, %eb3 : index")
        p.emit("  %ei = arith.remui %ei1, %ecm : index")
        p.emit("  %eh = linalg.index 1 : index")
        p.emit("  %%ev = tensor.extract %s[%%ei, %%eh] : %s" % (table, ttype(tshape, t)))
        p.emit("  linalg.yield %%ev : %s" % t)
        p.emit("} -> %s" % ttype(out, t))
        return p.add(name, out, t)
    if kind == "insert_slice":
        dest, shape, t = p.tensor_value([m, n], t)
        sm, sn = rng.randint(1, m), rng.randint(1, n)
        src = p.tensor_value([sm, sn], t)[0]
        om, on = rng.randint(0, m - sm), rng.randint(0, n - sn)
        c = p.fresh("c")
        p.emit("%s = arith.constant %d : index" % (c, om))
        p.emit("%s = tensor.insert_slice %s into %s[%s, %d] [%d, %d] [1, 1] : %s into %s" % (
            name, src, dest, c, on, sm, sn, ttype([sm, sn], t), ttype(shape, t)))
        return p.add(name, shape, t)
    if kind == "extract_slice":
        x, shape, t = p.tensor_value([m, n], t)
        sm, sn = rng.randint(1, m), rng.randint(1, n)
        st = rng.choice([1, 1, 2])
        sm = min(sm, (m - 1) // st + 1)
        om = rng.randint(0, m - ((sm - 1) * st + 1))
        on = rng.randint(0, n - sn)
        p.emit("%s = tensor.extract_slice %s[%d, %d] [%d, %d] [%d, 1] : %s to %s" % (
            name, x, om, on, sm, sn, st, ttype(shape, t), ttype([sm, sn], t)))
        return p.add(name, [sm, sn], t)
    if kind == "concat":
        d = rng.randrange(2)
        a, sa, t = p.tensor_value([m, n], t)
        other = [m, rng.choice(SIZES)] if d == 1 else [rng.choice(SIZES), n]
        b = p.tensor_value(other, t)[0]
        out = [m, n + other[1]] if d == 1 else [m + other[0], n]
        p.emit("%s = tensor.concat dim(%d) %s, %s : (%s, %s) -> %s" % (
            name, d, a, b, ttype(sa, t), ttype(other, t), ttype(out, t)))
        return p.add(name, out, t)
    if kind == "pad":
        x, shape, t = p.tensor_value([m, n], t)
        lo = [rng.randint(0, 2), rng.randint(0, 2)]
        hi = [rng.randint(0, 2), rng.randint(0, 2)]
        out = [m + lo[0] + hi[0], n + lo[1] + hi[1]]
        c = p.fresh("c")
        p.emit(constant(c, one(t), t))
        p.emit("%s = tensor.pad %s low[%d, %d] high[%d, %d] {" % (name, x, lo[0], lo[1], hi[0], hi[1]))
        p.emit("^bb0(%i: index, %j: index):")
        p.emit("  tensor.yield %s : %s" % (c, t))
        p.emit("} : %s to %s" % (ttype(shape, t), ttype(out, t)))
        return p.add(name, out, t)
    # reshape
    x, shape, t = p.tensor_value([m, n], t)
    c = p.fresh("r")
    p.emit("%s = tensor.collapse_shape %s [[0, 1]] : %s into %s" % (c, x, ttype(shape, t), ttype([m * n], t)))
    p.emit("%s = tensor.expand_shape %s [[0, 1]] output_shape [%d, %d] : %s into %s" % (
        name, c, n, m, ttype([m * n], t), ttype([n, m], t)))
    return p.add(name, [n, m], t)


def gen_control(p):
    rng = p.rng
    kinds = ["for", "if", "while", "call", "execute_region", "index_switch"]
    kind = rng.choice([k for k in kinds if p.calls_allowed or k != "call"])
    t = pick(rng, ["f32", "f64", "i32", "bf16"])
    shape = [rng.choice(SIZES) for _ in range(rng.randint(1, 2))]
    x = p.tensor_value(shape, t)[0]
    y = p.tensor_value(shape, t)[0]  # read from inside the region
    op = "arith.addf" if is_float(t) else "arith.addi"
    tt = ttype(shape, t)
    name = p.fresh("cf")
    if kind == "for":
        p.emit("%%lb%s = arith.constant 0 : index" % name[1:])
        p.emit("%%ub%s = arith.constant 3 : index" % name[1:])
        p.emit("%%st%s = arith.constant 1 : index" % name[1:])
        p.emit("%s = scf.for %%iv%s = %%lb%s to %%ub%s step %%st%s iter_args(%%acc%s = %s) -> (%s) {" % (
            name, name[1:], name[1:], name[1:], name[1:], name[1:], x, tt))
        p.emit("  %%n%s = %s %%acc%s, %s : %s" % (name[1:], op, name[1:], y, tt))
        p.emit("  scf.yield %%n%s : %s" % (name[1:], tt))
        p.emit("}")
    elif kind in ("if", "index_switch"):
        k = p.fresh("k")
        p.emit("%s = arith.constant %d : index" % (k, rng.randrange(2)))
        if kind == "if":
            c = p.fresh("p")
            z = p.fresh("z")
            p.emit("%s = arith.constant 0 : index" % z)
            p.emit("%s = arith.cmpi eq, %s, %s : index" % (c, k, z))
            p.emit("%s = scf.if %s -> %s {" % (name, c, tt))
        else:
            p.emit("%s = scf.index_switch %s -> %s" % (name, k, tt))
            p.emit("case 1 {")
        p.emit("  %%n%s = %s %s, %s : %s" % (name[1:], op, x, y, tt))
        p.emit("  scf.yield %%n%s : %s" % (name[1:], tt))
        p.emit("} else {" if kind == "if" else "}\ndefault {")
        p.emit("  scf.yield %s : %s" % (x, tt))
        p.emit("}")
    elif kind == "while":
        z = p.fresh("z")
        p.emit("%s = arith.constant 0 : index" % z)
        p.emit("%s:2 = scf.while (%%w%s = %s, %%j%s = %s) : (%s, index) -> (%s, index) {" % (
            name, name[1:], x, name[1:], z, tt, tt))
        p.emit("  %%lim%s = arith.constant 2 : index" % name[1:])
        p.emit("  %%more%s = arith.cmpi slt, %%j%s, %%lim%s : index" % (name[1:], name[1:], name[1:]))
        p.emit("  scf.condition(%%more%s) %%w%s, %%j%s : %s, index" % (name[1:], name[1:], name[1:], tt))
        p.emit("} do {")
        p.emit("^bb0(%%u%s: %s, %%q%s: index):" % (name[1:], tt, name[1:]))
        p.emit("  %%n%s = %s %%u%s, %s : %s" % (name[1:], op, name[1:], y, tt))
        p.emit("  %%one%s = arith.constant 1 : index" % name[1:])
        p.emit("  %%q2%s = arith.addi %%q%s, %%one%s : index" % (name[1:], name[1:], name[1:]))
        p.emit("  scf.yield %%n%s, %%q2%s : %s, index" % (name[1:], name[1:], tt))
        p.emit("}")
        return p.add(name + "#0", shape, t)
    elif kind == "call":
        helper = "helper%d" % len(p.helpers)
        body_op = "math.tanh %%h : %s" % tt if is_float(t) else "arith.muli %%h, %%h : %s" % tt
        p.helpers.append("func.func private @%s(%%h: %s) -> %s {\n  %%r = %s\n  return %%r : %s\n}\n" % (
            helper, tt, tt, body_op, tt))
        p.emit("%s = func.call @%s(%s) : (%s) -> %s" % (name, helper, x, tt, tt))
    else:
        p.emit("%s = scf.execute_region -> %s {" % (name, tt))
        p.emit("  %%n%s = %s %s, %s : %s" % (name[1:], op, x, y, tt))
        p.emit("  scf.yield %%n%s : %s" % (name[1:], tt))
        p.emit("}")
    return p.add(name, shape, t)


def axes_text(axes):
    return "[%s]" % ", ".join('"%s"' % a for a in axes)


def layout_text(dims):
    return "<@mesh, [%s]>" % ", ".join(
        "{%s}" % ", ".join('"%s"' % a for a in d) for d in dims)


class RegionProgram(Program):
    """The body of a spmd.manual_computation inside `outer`: tensors of
    local shapes, and a tensor it cannot make from its values becomes a
    new operand of the region (a value of the outer program split over
    some manual axes, and some free ones after them)."""

    def __init__(self, outer, manual):
        Program.__init__(self, outer.rng, outer.mesh)
        self.outer = outer
        self.manual = manual
        self.sizes = dict(outer.mesh)
        # (outer name, global shape, type, layout, arg, local shape)
        self.operands = []
        self.calls_allowed = False  # a callee would be global code

    def fresh(self, prefix="v"):
        return self.outer.fresh(prefix)

    def emit(self, line):
        self.lines.append("    " + line)

    def layout(self, local, may_omit=True, free_on=None):
        """Dims' axes (manual first, each axis once) and the global shape;
        free axes mostly on dimension `free_on` when given (a collective's
        moved dimension, which the body must bring whole)."""
        rng = self.rng
        rank = len(local)
        dims = [[] for _ in range(rank)]
        for a in self.manual:
            if rank and (not may_omit or rng.random() < 0.8):
                dims[rng.randrange(rank)].append(a)
        shape = list(local)
        for d in range(rank):
            for a in dims[d]:
                shape[d] *= self.sizes[a]
        for a, _ in self.mesh:
            if a in self.manual or not rank:
                continue
            if free_on is not None and rng.random() < 0.7:
                dims[free_on].append(a)
            elif rng.random() < 0.4:
                dims[rng.randrange(rank)].append(a)
        return dims, shape

    def arg(self, shape, t, partial_ok=True, free_on=None):
        dims, global_shape = self.layout(shape, free_on=free_on)
        outer = self.outer.tensor_value(global_shape, t)[0]
        name = self.fresh("l")
        self.operands.append((outer, global_shape, t, layout_text(dims), name,
                              list(shape)))
        self.values.append((name, shape, t))
        return name

    def add(self, name, shape, t):
        self.values.append((name, shape, t))
        return (name, shape, t)


REGION_REDUCTIONS = ["", " reduction = max", " reduction = min", " reduction = prod"]


def product(sizes, axes):
    n = 1
    for a in axes:
        n *= sizes[a]
    return n


def gen_collective(p):
    """A collective (or axis_index) of a manual region on some of its manual
    axes, on a value of the body."""
    rng = p.rng
    t = rng.choice(FLOATS + ["i8", "i32", "i64"])
    fits = [v for v in p.values if v[1] and v[2] == t]
    if fits and rng.random() < 0.6:
        name, shape, t = rng.choice(fits)
        d = rng.randrange(len(shape))
    else:
        # A new operand, often split over free axes on the moved dimension.
        shape = [rng.choice(SIZES) for _ in range(rng.randint(1, 3))]
        d = rng.randrange(len(shape))
        name = p.arg(shape, t, free_on=d)
    axes = rng.sample(p.manual, rng.randint(1, len(p.manual)))
    n = product(p.sizes, axes)
    tt = ttype(shape, t)
    on = "on @mesh axes = %s" % axes_text(axes)
    r = p.fresh("m")
    kind = rng.choice(["all_reduce", "all_gather", "reduce_scatter", "all_to_all",
                       "collective_permute", "broadcast", "reduce", "axis_index"])
    out = list(shape)
    elements = 1
    for size in shape:
        elements *= size
    if kind == "all_gather" and elements * n <= 4096:
        out[d] *= n
        p.emit("%s = spmd.all_gather %s %s gather_dim = %d : %s -> %s" % (
            r, name, on, d, tt, ttype(out, t)))
    elif kind == "reduce_scatter":
        out[d] = -(-out[d] // n)
        p.emit("%s = spmd.reduce_scatter %s %s scatter_dim = %d%s : %s -> %s" % (
            r, name, on, d, rng.choice(REGION_REDUCTIONS), tt, ttype(out, t)))
    elif kind == "all_to_all" and shape[d] % n == 0:
        c = rng.randrange(len(shape))
        out[d] //= n
        out[c] *= n
        p.emit("%s = spmd.all_to_all %s %s split_dim = %d concat_dim = %d : %s -> %s" % (
            r, name, on, d, c, tt, ttype(out, t)))
    elif kind == "collective_permute":
        sources = rng.sample(range(n), rng.randint(0, n))
        targets = rng.sample(range(n), len(sources))
        pairs = ", ".join("%d -> %d" % st for st in zip(sources, targets))
        p.emit("%s = spmd.collective_permute %s %s pairs = [%s] : %s" % (
            r, name, on, pairs, tt))
    elif kind == "broadcast":
        p.emit("%s = spmd.broadcast %s %s root = %d : %s" % (
            r, name, on, rng.randrange(n), tt))
    elif kind == "reduce":
        p.emit("%s = spmd.reduce %s %s root = %d%s : %s" % (
            r, name, on, rng.randrange(n), rng.choice(REGION_REDUCTIONS), tt))
    elif kind == "axis_index":
        # The coordinate along one axis added to every element.
        i, e = p.fresh("i"), p.fresh("e")
        p.emit("%s = spmd.axis_index \"%s\" on @mesh : index" % (i, axes[0]))
        p.emit("%s = tensor.empty() : %s" % (e, tt))
        body = Body(rng, p, list(range(len(shape))))
        j = body.fresh()
        body.emit("%s = arith.index_cast %s : index to i32" % (j, i))
        c, sum_ = body.cast(j, "i32", t), body.fresh()
        body.emit("%s = %s %%x, %s : %s" % (
            sum_, "arith.addf" if is_float(t) else "arith.addi", c, t))
        ident = affine(["d%d" % k for k in range(len(shape))], len(shape))
        p.emit("%s = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]}" % (
            r, ident, ident, ", ".join(['"parallel"'] * len(shape))))
        p.emit("    ins(%s : %s) outs(%s : %s) {" % (name, tt, e, tt))
        p.emit("^bb0(%%x: %s, %%o: %s):" % (t, t))
        p.lines.extend(body.lines)
        p.emit("  linalg.yield %s : %s" % (sum_, t))
        p.emit("} -> %s" % tt)
    else:
        p.emit("%s = spmd.all_reduce %s %s%s : %s" % (
            r, name, on, rng.choice(REGION_REDUCTIONS), tt))
    return p.add(r, out, t)


def gen_manual(p):
    """A spmd.manual_computation over some of the mesh's axes (all of them
    or fewer: the others stay automatic, and the body is partitioned over
    them): a body of ops of every family and collectives on manual axes,
    1 or 2 results. A result replicated over a manual axis is made equal
    along it first (an all_reduce)."""
    rng = p.rng
    names = [a for a, _ in p.mesh]
    region = RegionProgram(p, rng.sample(names, rng.randint(1, len(names))))
    made = []
    for _ in range(rng.randint(1, 4)):
        family = rng.choices([gen_generic, gen_named, gen_tensor, gen_control,
                              gen_collective], weights=[3, 2, 2, 1, 4])[0]
        made.append(family(region))
    yields = [made[-1]]
    if len(made) > 1 and rng.random() < 0.3:
        yields.append(rng.choice(made[:-1]))
    results = []
    for name, shape, t in yields:
        dims, global_shape = region.layout(shape, may_omit=t != "i1")
        omitted = [a for a in region.manual if not any(a in d for d in dims)]
        if omitted:
            same = region.fresh("m")
            region.emit("%s = spmd.all_reduce %s on @mesh axes = %s : %s" % (
                same, name, axes_text(omitted), ttype(shape, t)))
            name = same
        results.append((name, shape, t, layout_text(dims), global_shape))
    r = p.fresh("r")
    lhs = r if len(results) == 1 else "%s:%d" % (r, len(results))
    operands = region.operands
    p.emit("%s = spmd.manual_computation(%s)" % (lhs, ", ".join(o[0] for o in operands)))
    p.emit("    in_shardings = [%s]" % ", ".join(o[3] for o in operands))
    p.emit("    out_shardings = [%s]" % ", ".join(x[3] for x in results))
    p.emit("    manual_axes = %s" % axes_text(region.manual))
    p.emit("    (%s) {" % ", ".join("%s: %s" % (o[4], ttype(o[5], o[2])) for o in operands))
    p.lines.extend(region.lines)
    p.emit("  spmd.yield %s : %s" % (", ".join(x[0] for x in results),
                                    ", ".join(ttype(x[1], x[2]) for x in results)))
    result_types = [ttype(x[4], x[2]) for x in results]
    p.emit("} : (%s) -> %s" % (
        ", ".join(ttype(o[1], o[2]) for o in operands),
        result_types[0] if len(results) == 1 else "(%s)" % ", ".join(result_types)))
    out = []
    for i, x in enumerate(results):
        name = r if len(results) == 1 else "%s#%d" % (r, i)
        out.append(p.add(name, x[4], x[2]))
    return out[-1]


def draw_mesh(rng):
    """1 to 3 axes of at most 8 devices in all, sometimes permuted ids:
    the axes and the `, device_ids=[...]` text (or "")."""
    axes = [("x", rng.choice([1, 2, 2, 3, 4]))]
    if rng.random() < 0.6:
        axes.append(("y", rng.choice([1, 2, 2, 3, 4])))
    if rng.random() < 0.2:
        axes.append(("z", 2))
    while True:
        total = 1
        for _, s in axes:
            total *= s
        if total <= 8:
            break
        axes.pop()
    ids = ""
    if total > 1 and rng.random() < 0.3:
        perm = list(range(total))
        rng.shuffle(perm)
        ids = ", device_ids=[%s]" % ", ".join(map(str, perm))
    return axes, ids


def mesh_line(axes, ids):
    return "spmd.mesh @mesh = <[%s]%s>\n" % (
        ", ".join('"%s"=%d' % a for a in axes), ids)


def make_program(rng, regions=True, manual=False):
    """A program of 1 to 4 ops of every family; manual regions among them
    unless `regions` is false, one at least when `manual` is true."""
    axes, ids = draw_mesh(rng)
    p = Program(rng, axes)
    last = None
    count = rng.randint(1, 4)
    forced = rng.randrange(count) if manual else -1
    for step in range(count):
        family = rng.choices([gen_generic, gen_argmax, gen_named, gen_tensor,
                              gen_control, gen_manual],
                             weights=[5, 1, 3, 3, 2, 1 if regions else 0])[0]
        last = (gen_manual if step == forced else family)(p)
    name, shape, t = last
    result_attr = ""
    if rng.random() < 0.5:
        allow = t != "i1"
        result_attr = " {spmd.sharding = %s}" % p.sharding(len(shape), allow, t)
    text = mesh_line(axes, ids)
    text += "".join(p.helpers)
    text += "func.func @main(%s) -> (%s%s) {\n" % (
        ", ".join("%s: %s%s" % (n, ttype(s, t_) if s != [] or t_ != "index" else "index", a)
                  for n, s, t_, a in p.args),
        ttype(shape, t), result_attr)
    text += "\n".join(p.lines) + "\n"
    text += "  return %s : %s\n}\n" % (name, ttype(shape, t))
    return text


# --nonlinear: split reductions followed by deep chains of nonlinear ops.
NONLINEAR_TYPES = ["f32"] * 6 + ["f64", "f16", "bf16"]


class Nonlinear:
    """A function whose contractions and row reductions are split over a
    mesh axis (partial sums combined at run time), each followed by a chain
    of tanh, sigmoid, exp, log, erf, square roots and divisions, in layers,
    normalizations (softmax, layer norm) and recurrences (scf.for)."""

    def __init__(self, rng, axes):
        self.rng = rng
        self.axes = [a for a, size in axes if size > 1] or [axes[0][0]]
        self.t = rng.choice([t for t in NONLINEAR_TYPES if t in FLOATS] or FLOATS)
        self.args, self.lines, self.n = [], [], 0

    def fresh(self, prefix="v"):
        self.n += 1
        return "%%%s%d" % (prefix, self.n)

    def emit(self, line):
        self.lines.append("  " + line)

    def sharding(self, rank, split):
        """Dimension `split` over one axis, the others maybe over another."""
        dims = [[] for _ in range(rank)]
        axes = list(self.axes)
        self.rng.shuffle(axes)
        dims[split].append(axes[0])
        for a in axes[1:]:
            if self.rng.random() < 0.5:
                dims[self.rng.randrange(rank)].append(a)
        return "[%s]" % ", ".join(
            "{%s}" % ", ".join('"%s"' % a for a in d) for d in dims)

    def arg(self, shape, split=None):
        name = "%%a%d" % len(self.args)
        attr = ""
        if split is not None and self.rng.random() < 0.9:
            attr = " {spmd.sharding = #spmd.sharding<@mesh, %s>}" % self.sharding(len(shape), split)
        self.args.append("%s: %s%s" % (name, ttype(shape, self.t), attr))
        return name

    def split(self, x, shape, dim):
        """`x` constrained to have dimension `dim` split, now and then."""
        if self.rng.random() < 0.5:
            return x
        c = self.fresh("c")
        self.emit("%s = spmd.sharding_constraint %s <@mesh, %s> : %s" % (
            c, x, self.sharding(len(shape), dim), ttype(shape, self.t)))
        return c

    def filled(self, shape, value):
        e, f, k = self.fresh("e"), self.fresh("f"), self.fresh("k")
        self.emit(constant(k, value, self.t))
        self.emit("%s = tensor.empty() : %s" % (e, ttype(shape, self.t)))
        self.emit("%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" % (
            f, k, self.t, e, ttype(shape, self.t), ttype(shape, self.t)))
        return f

    def contraction(self, x, m, k, n, weight=None):
        """x [m, k] times a weight [k, n] split along k."""
        t = self.t
        w = weight or self.arg([k, n], split=0)
        x = self.split(x, [m, k], 1)
        init = self.filled([m, n], "0.0")
        name = self.fresh("mm")
        if self.rng.random() < 0.5:
            self.emit("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
                name, x, w, ttype([m, k], t), ttype([k, n], t), init,
                ttype([m, n], t), ttype([m, n], t)))
        else:
            self.emit("%s = linalg.generic {indexing_maps = [%s, %s, %s], "
                      "iterator_types = [\"parallel\", \"parallel\", \"reduction\"]}" % (
                          name, affine(["d0", "d2"], 3), affine(["d2", "d1"], 3),
                          affine(["d0", "d1"], 3)))
            self.emit("    ins(%s, %s : %s, %s) outs(%s : %s) {" % (
                x, w, ttype([m, k], t), ttype([k, n], t), init, ttype([m, n], t)))
            self.emit("^bb0(%%p: %s, %%q: %s, %%acc: %s):" % (t, t, t))
            self.emit("  %%pq = arith.mulf %%p, %%q : %s" % t)
            self.emit("  %%s = arith.addf %%acc, %%pq : %s" % t)
            self.emit("  linalg.yield %%s : %s" % t)
            self.emit("} -> %s" % ttype([m, n], t))
        return name

    def unary(self, body, v, other, first=False):
        """One nonlinear step of `v` (`other`: another element to mix in;
        `first`: the step right after a sum)."""
        t = self.t

        def op(text):
            name = "%%u%d" % len(body)
            body.append("  %s = %s : %s" % (name, text, t))
            return name

        def c(value):
            return op("arith.constant %s" % value)

        kind = self.rng.choice(["tanh", "sigmoid", "exp", "exp-tanh", "log",
                                "ratio", "erf", "rsqrt", "sqrt", "softplus",
                                "square", "mix", "gate", "divide", "atan",
                                "asinh", "hyperbolic", "asin", "atan2", "cbrt",
                                "erfc", "expm1", "log10"] +
                               # steep near 0, where cancelling sums lie
                               ["tanh", "log", "ratio"] * first)
        if kind == "tanh":
            return op("math.tanh %s" % v)
        if kind == "sigmoid":
            e = op("math.exp %s" % op("arith.negf %s" % v))
            one = c("1.0")
            return op("arith.divf %s, %s" % (one, op("arith.addf %s, %s" % (one, e))))
        if kind == "exp":
            return op("math.exp %s" % op("arith.negf %s" % op("math.absf %s" % v)))
        if kind == "exp-tanh":
            return op("math.exp %s" % op("math.tanh %s" % v))
        if kind == "log":
            shift = c(self.rng.choice(["1.0", "0.5", "0.01", "1.0e-3"]))
            return op("math.log %s" % op("arith.addf %s, %s" % (op("math.absf %s" % v), shift)))
        if kind == "ratio":  # x / (c + x^2)
            shift = c(self.rng.choice(["1.0", "0.25", "0.01"]))
            return op("arith.divf %s, %s" % (v, op("arith.addf %s, %s" % (
                op("arith.mulf %s, %s" % (v, v)), shift))))
        if kind == "erf":  # x (1 + erf(x / sqrt 2)) / 2
            half, one = c("0.5"), c("1.0")
            e = op("math.erf %s" % op("arith.mulf %s, %s" % (v, c("0.70710678"))))
            return op("arith.mulf %s, %s" % (op("arith.mulf %s, %s" % (v, half)),
                                             op("arith.addf %s, %s" % (one, e))))
        if kind == "rsqrt":  # x / sqrt(1 + x^2)
            r = op("math.rsqrt %s" % op("arith.addf %s, %s" % (
                op("arith.mulf %s, %s" % (v, v)), c("1.0"))))
            return op("arith.mulf %s, %s" % (v, r))
        if kind == "sqrt":
            return op("math.sqrt %s" % op("arith.addf %s, %s" % (op("math.absf %s" % v), c("0.5"))))
        if kind == "softplus":  # max(x, 0) + log(1 + exp(-|x|))
            e = op("math.exp %s" % op("arith.negf %s" % op("math.absf %s" % v)))
            lg = op("math.log %s" % op("arith.addf %s, %s" % (e, c("1.0"))))
            return op("arith.addf %s, %s" % (op("arith.maximumf %s, %s" % (v, c("0.0"))), lg))
        if kind == "square":
            return op("arith.mulf %s, %s" % (v, op("math.tanh %s" % v)))
        if kind in ("atan", "asinh", "erfc"):
            return op("math.%s %s" % (kind, v))
        if kind == "hyperbolic":  # sinh or cosh of a bounded value
            fn = self.rng.choice(["sinh", "cosh"])
            return op("math.%s %s" % (fn, op("math.tanh %s" % v)))
        if kind == "asin":  # asin or acos of 0.9 tanh(x)
            fn = self.rng.choice(["asin", "acos"])
            return op("math.%s %s" % (fn, op("arith.mulf %s, %s" % (
                op("math.tanh %s" % v), c("0.9")))))
        if kind == "atan2":  # atan2(x, 2 + tanh(other))
            d = op("arith.addf %s, %s" % (op("math.tanh %s" % other), c("2.0")))
            return op("math.atan2 %s, %s" % (v, d))
        if kind in ("cbrt", "log10"):
            return op("math.%s %s" % (kind, op("arith.addf %s, %s" % (
                op("math.absf %s" % v), c("0.5")))))
        if kind == "expm1":
            return op("math.expm1 %s" % op("arith.negf %s" % op("math.absf %s" % v)))
        if kind == "mix":
            return op("arith.subf %s, %s" % (v, other))
        if kind == "gate":  # v * sigmoid(other), sigmoid as tanh
            s = op("math.tanh %s" % other)
            return op("arith.mulf %s, %s" % (v, op("arith.addf %s, %s" % (s, c("1.0")))))
        # v / (2 + tanh(other)): a denominator that is itself computed
        d = op("arith.addf %s, %s" % (op("math.tanh %s" % other), c("2.0")))
        return op("arith.divf %s, %s" % (v, d))

    def chain(self, x, shape, other=None):
        """2 to 8 nonlinear steps of `x`, in one to three generics."""
        t = self.t
        steps = self.rng.randint(2, 8)
        cuts = sorted(self.rng.sample(range(1, steps), self.rng.randint(0, min(2, steps - 1))))
        loops = len(shape)
        ident = affine(["d%d" % i for i in range(loops)], loops)
        other, start = other or x, x
        for count in [b - a for a, b in zip([0] + cuts, cuts + [steps])]:
            body, v = [], "%x"
            for step in range(count):
                v = self.unary(body, v, "%y", first=step == 0 and x == start)
            e, name = self.fresh("e"), self.fresh("nl")
            self.emit("%s = tensor.empty() : %s" % (e, ttype(shape, t)))
            self.emit("%s = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = [%s]}" % (
                name, ident, ident, ident, ", ".join(['"parallel"'] * loops)))
            self.emit("    ins(%s, %s : %s, %s) outs(%s : %s) {" % (
                x, other, ttype(shape, t), ttype(shape, t), e, ttype(shape, t)))
            self.emit("^bb0(%%x: %s, %%y: %s, %%o: %s):" % (t, t, t))
            self.lines.extend("  " + line for line in body)
            self.emit("  linalg.yield %s : %s" % (v, t))
            self.emit("} -> %s" % ttype(shape, t))
            x = name
        return x

    def row_reduce(self, x, m, n, combiner, identity, pre=None):
        """[m, n] -> [m] over the split n: `combiner` of pre(x)."""
        t = self.t
        x = self.split(x, [m, n], 1)
        init = self.filled([m], identity)
        name = self.fresh("red")
        self.emit("%s = linalg.generic {indexing_maps = [%s, %s], iterator_types = [\"parallel\", \"reduction\"]}" % (
            name, affine(["d0", "d1"], 2), affine(["d0"], 2)))
        self.emit("    ins(%s : %s) outs(%s : %s) {" % (x, ttype([m, n], t), init, ttype([m], t)))
        self.emit("^bb0(%%x: %s, %%acc: %s):" % (t, t))
        v = "%x"
        if pre:
            self.emit("  %%px = %s : %s" % (pre, t))
            v = "%px"
        self.emit("  %%r = %s %%acc, %s : %s" % (combiner, v, t))
        self.emit("  linalg.yield %%r : %s" % t)
        self.emit("} -> %s" % ttype([m], t))
        return name

    def rowwise(self, x, row, m, n, text):
        """out[i, j] = text(%x = x[i, j], %r = row[i])."""
        t = self.t
        e, name = self.fresh("e"), self.fresh("rw")
        self.emit("%s = tensor.empty() : %s" % (e, ttype([m, n], t)))
        self.emit("%s = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = [\"parallel\", \"parallel\"]}" % (
            name, affine(["d0", "d1"], 2), affine(["d0"], 2), affine(["d0", "d1"], 2)))
        self.emit("    ins(%s, %s : %s, %s) outs(%s : %s) {" % (
            x, row, ttype([m, n], t), ttype([m], t), e, ttype([m, n], t)))
        self.emit("^bb0(%%x: %s, %%r: %s, %%o: %s):" % (t, t, t))
        for line in text:
            self.emit("  " + line.replace("T", t))
        self.emit("} -> %s" % ttype([m, n], t))
        return name

    def normalize(self, x, m, n):
        """Softmax or layer norm along the split n: divisions by split sums."""
        if self.rng.random() < 0.5:
            big = self.row_reduce(x, m, n, "arith.maximumf", "-3.0e38" if self.t != "f16" else "-65504.0")
            e = self.rowwise(x, big, m, n, ["%d = arith.subf %x, %r : T",
                                            "%ex = math.exp %d : T", "linalg.yield %ex : T"])
            total = self.row_reduce(e, m, n, "arith.addf", "0.0")
            return self.rowwise(e, total, m, n, ["%q = arith.divf %x, %r : T",
                                                 "linalg.yield %q : T"])
        total = self.row_reduce(x, m, n, "arith.addf", "0.0")
        inv = "%%inv = arith.constant %s : T" % repr(1.0 / n)
        centred = self.rowwise(x, total, m, n, [inv, "%mean = arith.mulf %r, %inv : T",
                                                "%d = arith.subf %x, %mean : T",
                                                "linalg.yield %d : T"])
        squares = self.row_reduce(centred, m, n, "arith.addf", "0.0", pre="arith.mulf %x, %x")
        return self.rowwise(centred, squares, m, n, [
            inv, "%var = arith.mulf %r, %inv : T", "%eps = arith.constant 1.0e-3 : T",
            "%ve = arith.addf %var, %eps : T", "%s = math.rsqrt %ve : T",
            "%y = arith.mulf %x, %s : T", "linalg.yield %y : T"])

    def recurrence(self, x, m, n):
        """h <- chain(h W + x) for 2 to 6 steps, W split along its rows: an
        scf.for, or one time in three unrolled (a chain of contractions
        with one W, as importers that unroll loops write it)."""
        t = self.t
        w = self.arg([n, n], split=0)
        steps, loop = self.rng.randint(2, 6), self.fresh("loop")
        if self.rng.random() < 1 / 3:
            h = x
            for _ in range(steps):
                h = self.chain(self.contraction(h, m, n, n, weight=w), [m, n], other=x)
            return h
        tag = loop[1:]
        self.emit("%%lb%s = arith.constant 0 : index" % tag)
        self.emit("%%ub%s = arith.constant %d : index" % (tag, steps))
        self.emit("%%st%s = arith.constant 1 : index" % tag)
        self.emit("%s = scf.for %%iv%s = %%lb%s to %%ub%s step %%st%s iter_args(%%h%s = %s) -> (%s) {" % (
            loop, tag, tag, tag, tag, tag, x, ttype([m, n], t)))
        mm = self.contraction("%h" + tag, m, n, n, weight=w)
        h = self.chain(mm, [m, n], other=x)
        self.emit("scf.yield %s : %s" % (h, ttype([m, n], t)))
        self.emit("}")
        return loop


def make_nonlinear_program(rng):
    axes, ids = draw_mesh(rng)
    if all(size == 1 for _, size in axes):  # something to split over
        axes[0] = ("x", 2)
    p = Nonlinear(rng, axes)
    # Long sums and many elements: some lie near 0, where steep ops pass
    # on the rounding of the sum.
    m = rng.choice([1, 3, 8])
    k = rng.choice([37, 128, 256, 300, 512])
    x = p.arg([m, k], split=1)
    for _ in range(rng.randint(1, 3)):
        n = rng.choice([17, 64, 128, 256])
        kind = rng.choice(["layer", "layer", "normalize", "recurrence"])
        x = p.chain(p.contraction(x, m, k, n), [m, n])
        if kind == "normalize":
            x = p.chain(p.normalize(x, m, n), [m, n])
        elif kind == "recurrence":
            x = p.recurrence(x, m, n)
        k = n
    text = mesh_line(axes, ids)
    text += "func.func @main(%s) -> %s {\n" % (", ".join(p.args), ttype([m, k], p.t))
    text += "\n".join(p.lines) + "\n"
    text += "  return %s : %s\n}\n" % (x, ttype([m, k], p.t))
    return text


def device_count(path):
    header = open(path).readline()
    count = 1
    for size in re.findall(r'"=(\d+)', header):
        count *= int(size)
    return count


def drop_annotations(text, rng):
    """Removes about half of the argument and result annotations."""
    marker = "{spmd.sharding = #spmd.sharding<"
    out, at = [], 0
    while True:
        start = text.find(marker, at)
        if start < 0:
            break
        depth, end = 0, start + len(marker) - 1
        while True:
            depth += {"<": 1, ">": -1}.get(text[end], 0)
            end += 1
            if depth == 0:
                break
        end += 1  # the closing brace
        out.append(text[at:start])
        if rng.random() < 0.5:
            out.append(text[start:end])
        at = end
    out.append(text[at:])
    return "".join(out)


def auto_shard(spmd_opt, path, rng, timeout):
    """Auto-shards `path` in place; returns an error kind or None."""
    options = []
    if rng.random() < 1 / 3:
        options.append("share-above=0")
    if rng.random() < 1 / 4:
        options.append("memory-budget=%d" % rng.choice([4096, 65536, 1 << 20]))
    command = [spmd_opt, path, "-o", path + ".auto"]
    command.append("--spmd-auto-shard" + ("=" + " ".join(options) if options else ""))
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", ""
    if run.returncode == 0:
        os.replace(path + ".auto", path)
        return None, ""
    if "fits the memory budget" in run.stderr:
        return "skip", ""
    return ("crash" if run.returncode < 0 else "auto-shard error"), run.stderr


def run_one(spmd_run, path, seed, timeout, processes=1, spmd_opt=None):
    if spmd_opt:
        original = path + ".orig"
        shutil.copy(path, original)
        kind, out = auto_shard(spmd_opt, path, random.Random(seed), timeout)
        if kind == "skip":
            return path, None, "skipped: no plan fits"
        if kind:
            return path, kind, out
    command = [spmd_run, path, "--check", "--seed", str(seed)]
    if processes > 1 and device_count(path) % processes == 0:
        command = ["mpirun", "--oversubscribe", "-np", str(processes)] + command
    try:
        run = subprocess.run(command, capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return path, "hang", ""
    out = (run.stdout + run.stderr).strip()
    if run.returncode == 0 and "check: PASS" in run.stdout:
        return path, None, out
    if run.returncode < 0 or run.returncode > 2:
        return path, "crash", out
    if "check: FAIL" in run.stdout:
        return path, "wrong", out
    return path, "error", out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("spmd_run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=50)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", default="")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--auto-shard", default="", metavar="SPMD_OPT")
    ap.add_argument("--nonlinear", action="store_true")
    ap.add_argument("--manual", action="store_true")
    a = ap.parse_args()
    if a.processes > 1 and not shutil.which("mpirun"):
        print("skipped: mpirun not found (install openmpi-bin)")
        return 77
    if a.processes > 1:
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    keep = a.keep or tempfile.mkdtemp(prefix="fuzz-")
    os.makedirs(keep, exist_ok=True)
    jobs = []
    for case in range(a.cases):
        rng = random.Random("%d/%d" % (a.seed, case))
        path = os.path.join(keep, "s%d_c%d.mlir" % (a.seed, case))
        with open(path, "w") as f:
            text = (make_nonlinear_program(rng) if a.nonlinear
                    else make_program(rng, manual=a.manual))
            if a.auto_shard:
                text = drop_annotations(text, rng)
            f.write(text)
        jobs.append((path, case))
    passed = failed = skipped = 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = [pool.submit(run_one, a.spmd_run, path, case, a.timeout,
                               a.processes, a.auto_shard)
                   for path, case in jobs]
        for future in futures:
            path, kind, out = future.result()
            if kind is None:
                passed += 1
                skipped += out.startswith("skipped")
                if not a.keep:
                    os.remove(path)
                    if os.path.exists(path + ".orig"):
                        os.remove(path + ".orig")
            else:
                failed += 1
                first = "\n    ".join(out.splitlines()[-3:])
                print("FAIL %s (%s): %s" % (path, kind, first))
    if failed:
        print("failing programs are in %s" % keep)
    elif not a.keep:
        os.rmdir(keep)
    if skipped:
        print("%d of the passed programs fit no plan of their budget" % skipped)
    print("fuzz: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
