#!/usr/bin/env python3
"""A linalg-on-tensors MLIR function as an eager PyTorch function, op by op.

Usage: torch_program.py FILE.mlir [--entry NAME]       prints the generated source
       torch_program.py --serve --threads T             the worker of end_to_end.py

The translation is what a PyTorch user would write for the program, one torch
call per op, no fusion and no rewriting of the computation:

  linalg.matmul (on a zero fill)      a @ b
  linalg.generic, a copy through a    a view: x.t(), x.permute(...), x[:, None].expand(...)
    permutation or broadcast
  linalg.generic, elementwise         the torch operators of its body (+ - * /, torch.exp,
                                      torch.relu for max(x, 0) and cmpf+select, ...);
                                      operands aligned to the loops by their indexing maps
                                      (permuted / unsqueezed views, broadcasting); splat
                                      constants as Python scalars
  linalg.generic, reduction           torch.sum / torch.amax / torch.amin / torch.prod over
                                      the reduction dimensions (keepdim when the maps keep them)
  linalg.conv_2d_nhwc_hwcf            F.conv2d on the NCHW view of the NHWC tensor (which is
                                      channels_last in memory), weights converted once to OIHW
                                      channels_last at setup
  linalg.pooling_nhwc_max             F.max_pool2d on the same view
  linalg.conv_2d_nchw_fchw            F.conv2d on the NCHW tensor, the FCHW weights as they are
  linalg.pooling_nchw_max / _sum      F.max_pool2d / F.avg_pool2d(divisor_override=1)
  cf.assert of a known condition      nothing (torch-mlir's "training is not supported")
  tensor.pad (constant)               F.pad
  arith.constant (tensor)             built once at setup: torch.full for a splat, the data
                                      otherwise
  linalg.fill, tensor.empty           nothing at run time when they only initialise the
                                      output of a matmul, conv, pooling or reduction with
                                      the operation's identity (torch.full otherwise)
  tensor.cast, collapse/expand_shape  nothing / reshape

Anything else is refused with an error naming the op and its line. Values are
deleted after their last use, as in a module's forward. Setup (parsing,
constants, weight layouts) is not part of the function; the function is
meant to be called under torch.inference_mode().

Parsing and translation need neither torch nor numpy (end_to_end.py uses
them for the verification variants); only TorchProgram, which builds the
constants and the function, does.
"""
import json
import math
import os
import re
import statistics
import struct
import sys
import time


class TranslateError(Exception):
    pass


# --------------------------------------------------------------------------
# Text helpers


def _strip_comment(line):
    out, quoted = [], False
    i = 0
    while i < len(line):
        c = line[i]
        if c == '"':
            quoted = not quoted
        elif not quoted and line.startswith("//", i):
            break
        out.append(c)
        i += 1
    return "".join(out)


def split_top(text, sep=","):
    """Splits at `sep` outside (), [], {}, <> and quotes ('->' is not a bracket)."""
    parts, depth, cur, i, quoted = [], 0, [], 0, False
    while i < len(text):
        c = text[i]
        if quoted:
            cur.append(c)
            if c == '"':
                quoted = False
        elif c == '"':
            quoted = True
            cur.append(c)
        elif c == "-" and text.startswith("->", i):
            cur.append("->")
            i += 2
            continue
        elif c in "([{<":
            depth += 1
            cur.append(c)
        elif c in ")]}>":
            depth -= 1
            cur.append(c)
        elif depth == 0 and text.startswith(sep, i):
            parts.append("".join(cur).strip())
            cur = []
            i += len(sep)
            continue
        else:
            cur.append(c)
        i += 1
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def matching(text, start):
    """Index of the bracket closing the one at text[start] ('->' skipped)."""
    opening = text[start]
    closing = {"(": ")", "[": "]", "{": "}", "<": ">"}[opening]
    depth, i, quoted = 0, start, False
    while i < len(text):
        c = text[i]
        if quoted:
            if c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == "-" and text.startswith("->", i):
            i += 2
            continue
        elif c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise TranslateError("unbalanced %r in: %s" % (opening, text[:200]))


def _brace_balance(text):
    depth, quoted = 0, False
    for c in text:
        if c == '"':
            quoted = not quoted
        elif not quoted:
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
    return depth


FLOAT_TYPES = {"f16", "bf16", "f32", "f64"}
INT_TYPES = {"i1", "i8", "i16", "i32", "i64", "index"}


class TensorType:
    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), dtype

    def __repr__(self):
        return "tensor<%s>" % "x".join([str(d) for d in self.shape] + [self.dtype])

    def __eq__(self, other):
        return (isinstance(other, TensorType) and self.shape == other.shape
                and self.dtype == other.dtype)


def parse_type(text):
    text = text.strip()
    m = re.fullmatch(r"tensor<(.*)>", text)
    if m:
        parts = m.group(1).split("x")
        if any(p == "?" for p in parts[:-1]):
            raise TranslateError("dynamic shapes are not supported: " + text)
        if "," in parts[-1]:
            raise TranslateError("tensor encodings are not supported: " + text)
        return TensorType([int(p) for p in parts[:-1]], parts[-1])
    if text in FLOAT_TYPES or text in INT_TYPES:
        return text
    raise TranslateError("unsupported type " + text)


def parse_number(token, dtype):
    token = token.strip()
    if token in ("true", "false"):
        return 1 if token == "true" else 0
    if token.lower().startswith("0x") and dtype in FLOAT_TYPES:
        bits = int(token, 16)
        if dtype == "f32":
            return struct.unpack("<f", struct.pack("<I", bits))[0]
        if dtype == "f64":
            return struct.unpack("<d", struct.pack("<Q", bits))[0]
        if dtype == "f16":
            return struct.unpack("<e", struct.pack("<H", bits))[0]
        if dtype == "bf16":
            return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    if dtype in FLOAT_TYPES:
        return float(token)
    return int(token, 0)


def f32(value):
    """value rounded to f32 (the constants of f32 programs), as a Python float."""
    if math.isnan(value) or math.isinf(value):
        return value
    return struct.unpack("<f", struct.pack("<f", value))[0]


def literal(value):
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    return repr(value)


class AffineMap:
    """(d0, ..., dn-1) -> (e0, ...): each result a dimension index or ('c', value)."""

    def __init__(self, text):
        m = re.fullmatch(r"\s*affine_map<\s*\(([^)]*)\)\s*(?:\[[^\]]*\])?\s*->\s*\((.*)\)\s*>\s*",
                         text)
        if not m:
            raise TranslateError("unsupported affine map " + text)
        dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
        self.ndims = len(dims)
        self.results = []
        for e in [e.strip() for e in m.group(2).split(",") if e.strip()]:
            if e in dims:
                self.results.append(dims.index(e))
            elif re.fullmatch(r"-?\d+", e):
                self.results.append(("c", int(e)))
            else:
                raise TranslateError("unsupported affine expression %r in %s" % (e, text))
        self.text = text.strip()

    def dims(self):
        return [r for r in self.results if not isinstance(r, tuple)]

    def is_identity(self):
        return self.results == list(range(self.ndims))


# --------------------------------------------------------------------------
# Statements and regions


STMT_START = re.compile(
    r"^(%[\w.$-]+(:\d+)?(\s*,\s*%[\w.$-]+(:\d+)?)*\s*=(?!=)|[A-Za-z_]\w*\.[\w.]+|return\b"
    r"|module\b|#[\w.$-]+\s*=|\^|\})")


class Stmt:
    def __init__(self, text, line, first, last):
        self.text, self.line, self.first, self.last = text, line, first, last
        self.region, self.tail, self.label = None, "", None

    def __repr__(self):
        return "Stmt(%d: %s)" % (self.line, self.text[:60])


def read_block(lines, i):
    """Statements from line i up to a line starting with '}' (returned, unconsumed)."""
    ops = []
    n = len(lines)
    while i < n:
        line = lines[i].strip()
        if not line:
            i += 1
            continue
        if line.startswith("}"):
            return ops, i
        first = i
        text = line
        i += 1
        while i < n and lines[i].strip() and not STMT_START.match(lines[i].strip()):
            text += " " + lines[i].strip()
            i += 1
        st = Stmt(text, first + 1, first, i - 1)
        if line.startswith("^"):
            st.label = line
            ops.append(st)
            continue
        if _brace_balance(text) > 0:
            st.region, i = read_block(lines, i)
            if i >= n:
                raise TranslateError("line %d: region not closed" % st.line)
            tail = lines[i].strip()[1:].strip()
            i += 1
            while i < n and lines[i].strip() and not STMT_START.match(lines[i].strip()):
                tail += " " + lines[i].strip()
                i += 1
            st.tail = tail
            st.last = i - 1
        ops.append(st)
    return ops, i


def split_result(text):
    """'%a = op rest' -> (['%a'], 'op', 'rest'); 'op rest' -> ([], 'op', 'rest')."""
    m = re.match(r"^((?:%[\w.$-]+(?::\d+)?\s*,\s*)*%[\w.$-]+(?::\d+)?)\s*=\s*([\w.]+)\s*(.*)$",
                 text)
    if m:
        names = [r.strip() for r in m.group(1).split(",")]
        if any(":" in r for r in names):
            raise TranslateError("multi-result values (%s) are not supported" % m.group(1))
        return names, m.group(2), m.group(3)
    m = re.match(r"^([\w.]+)\s*(.*)$", text)
    if not m:
        raise TranslateError("cannot parse: " + text[:120])
    return [], m.group(1), m.group(2)


class Function:
    def __init__(self, stmt):
        self.stmt = stmt
        text = stmt.text
        m = re.match(r"func\.func\s+(?:(?:public|private|nested)\s+)?@([\w.$-]+)\s*\(", text)
        if not m:
            raise TranslateError("line %d: cannot parse the function header" % stmt.line)
        self.name = m.group(1)
        open_paren = m.end() - 1
        close = matching(text, open_paren)
        self.args = []
        for a in split_top(text[open_paren + 1:close]):
            am = re.match(r"(%[\w.$-]+)\s*:\s*(.*)$", a)
            if not am:
                raise TranslateError("line %d: cannot parse argument %r" % (stmt.line, a))
            ty = am.group(2).strip()
            if ty.endswith("}"):
                ty = ty[:ty.index("{")].strip()
            self.args.append((am.group(1), parse_type(ty)))
        rest = text[close + 1:].strip()
        if rest.endswith("{"):
            rest = rest[:-1].strip()
        rest = re.sub(r"attributes\s*\{.*\}\s*$", "", rest).strip()
        self.result_types = []
        if rest.startswith("->"):
            rest = rest[2:].strip()
            if rest.startswith("("):
                rest = rest[1:matching(rest, 0)]
            for r in split_top(rest):
                if "{" in r:
                    r = r[:r.index("{")]
                self.result_types.append(parse_type(r))
        self.body = [s for s in (stmt.region or [])]
        self.callees = set(re.findall(r"call\s+@([\w.$-]+)",
                                      " ".join(s.text for s in self.body)))


class Module:
    def __init__(self, text):
        self.text = text
        # A dialect resource section ({-# ... #-}) holds dense_resource blobs,
        # which are not supported; blanked, line numbers kept.
        text = re.sub(r"\{-#.*?#-\}", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
        self.lines = [_strip_comment(l) for l in text.splitlines()]
        ops, i = read_block(self.lines, 0)
        if i < len(self.lines):
            raise TranslateError("line %d: unmatched '}'" % (i + 1))
        self.aliases = {}
        self.functions = []
        self._collect(ops)

    def _collect(self, ops):
        for st in ops:
            if st.label:
                continue
            am = re.match(r"^(#[\w.$-]+)\s*=\s*(.*)$", st.text)
            if am:
                value = am.group(2).strip()
                if st.region is not None:        # a dictionary over several lines
                    value += " }" + (" " + st.tail if st.tail else "")
                self.aliases[am.group(1)] = value
            elif st.text.startswith("module"):
                self._collect(st.region or [])
            elif st.text.startswith("func.func"):
                if st.region is not None:
                    self.functions.append(Function(st))

    def entry(self, name=None):
        if name:
            for f in self.functions:
                if f.name == name:
                    return f
            raise TranslateError("no function @%s" % name)
        if not self.functions:
            raise TranslateError("no function with a body")
        called = set().union(*[f.callees for f in self.functions])
        roots = [f for f in self.functions if f.name not in called]
        if len(roots) != 1:
            raise TranslateError("several entry functions: %s (use --entry)"
                                 % ", ".join("@" + f.name for f in roots))
        return roots[0]

    def resolve(self, text):
        """An attribute with its #aliases replaced."""
        return re.sub(r"#[\w.$-]+", lambda m: self.aliases.get(m.group(0), m.group(0)), text)


# --------------------------------------------------------------------------
# Values during translation


class Val:
    """kind: 'scalar' (a Python number), 'const' (a tensor constant), 'empty',
    'fill' (a tensor of one known value), 'tensor' (a variable of the function)."""

    def __init__(self, kind, type=None, value=None, expr=None, name=None, data=None):
        self.kind, self.type, self.value, self.expr = kind, type, value, expr
        self.name, self.data = name, data

    @property
    def shape(self):
        return self.type.shape

    def splat(self):
        """The Python number every element equals, when known at translation."""
        if self.kind in ("scalar", "fill"):
            return self.value
        if self.kind == "const" and self.data is None:
            return self.value
        return None


def pyname(ssa):
    return "v_" + re.sub(r"[^\w]", "_", ssa[1:])


class Term:
    """A value inside a generic's body: a Python scalar or a tensor expression
    whose shape lies in the loop space (dims of size 1 broadcast)."""

    def __init__(self, expr, scalar=None, shape=None, uses=(), origin=None, is_bool=False):
        self.expr, self.scalar, self.shape = expr, scalar, shape
        self.uses, self.origin, self.is_bool = set(uses), origin, is_bool

    @property
    def is_scalar(self):
        return self.scalar is not None


CMP = {"oeq": "==", "ueq": "==", "one": "!=", "une": "!=", "ogt": ">", "ugt": ">",
       "oge": ">=", "uge": ">=", "olt": "<", "ult": "<", "ole": "<=", "ule": "<="}
IDENTITY = {"sum": 0.0, "amax": -math.inf, "amin": math.inf, "prod": 1.0}
REDUCER = {"arith.addf": "sum", "arith.maximumf": "amax", "arith.maxnumf": "amax",
           "arith.minimumf": "amin", "arith.minnumf": "amin", "arith.mulf": "prod"}
UNARY = {"math.exp": "torch.exp", "math.log": "torch.log", "math.tanh": "torch.tanh",
         "math.sqrt": "torch.sqrt", "math.rsqrt": "torch.rsqrt", "math.absf": "torch.abs",
         "math.erf": "torch.erf", "math.sin": "torch.sin", "math.cos": "torch.cos"}
TORCH_DTYPE = {"f32": "torch.float32", "f64": "torch.float64", "f16": "torch.float16",
               "bf16": "torch.bfloat16", "i64": "torch.int64", "i32": "torch.int32",
               "i8": "torch.int8", "i1": "torch.bool"}


class Translation:
    """The function as Python source plus the constants it needs (specs, built
    by TorchProgram). Pure Python."""

    def __init__(self, text, entry=None):
        self.module = Module(text)
        self.func = self.module.entry(entry)
        self.env = {}
        self.stmts = []          # (code, defined python name or None, used python names)
        self.constants = {}      # global name -> spec
        self.const_uses = {}     # const SSA name -> set of ways used ('tensor', 'scalar')
        self.checkpoints = []    # SSA names of the results of matmuls, convs, pools, reductions
        self.op_counts = {}
        for name, ty in self.func.args:
            if not isinstance(ty, TensorType):
                raise TranslateError("argument %s: only tensor arguments are supported" % name)
            self.env[name] = Val("tensor", ty, expr=pyname(name))
        self.results = None
        for st in self.func.body:
            if st.label:
                continue
            try:
                self.op(st)
            except TranslateError as e:
                if str(e).startswith("line "):
                    raise
                raise TranslateError("line %d: %s" % (st.line, e))
            except (KeyError, ValueError, AttributeError, IndexError, TypeError) as e:
                raise TranslateError("line %d: cannot translate %s (%s: %s)" % (
                    st.line, split_result(st.text)[1], type(e).__name__, e))
        if self.results is None:
            raise TranslateError("@%s has no return" % self.func.name)
        self.source = self._source()

    # -- helpers
    def emit(self, code, define, uses):
        self.stmts.append((code, define, set(u for u in uses if u)))

    def get(self, name):
        if name not in self.env:
            raise TranslateError("unknown value %s" % name)
        return self.env[name]

    def note_const(self, v, how):
        if v.kind == "const":
            self.const_uses.setdefault(v.name, set()).add(how)

    def const_tensor(self, v):
        """The global holding constant `v` as a tensor (built at setup)."""
        g = "K_" + pyname(v.name)[2:]
        if g not in self.constants:
            if v.data is None:
                self.constants[g] = ("full", v.shape, v.type.dtype, v.value)
            else:
                self.constants[g] = ("data", v.shape, v.type.dtype, v.data)
        self.note_const(v, "tensor")
        return g

    def tensor_expr(self, v, what):
        """A Python expression for tensor value v used whole."""
        if v.kind == "tensor":
            return v.expr
        if v.kind == "const":
            return self.const_tensor(v)
        if v.kind == "fill":
            g = "%s" % ("F_%d" % len(self.stmts))
            self.emit("%s = torch.full(%r, %s, dtype=%s)" % (
                g, v.shape, literal(v.value), TORCH_DTYPE[v.type.dtype]), g, [])
            return g
        raise TranslateError("%s reads an uninitialised tensor (tensor.empty)" % what)

    def define(self, names, val):
        if len(names) != 1:
            raise TranslateError("expected one result")
        self.env[names[0]] = val

    def new_tensor(self, names, ty, code_rhs, uses, checkpoint=False):
        name = names[0]
        var = pyname(name)
        self.emit("%s = %s" % (var, code_rhs), var, uses)
        self.env[name] = Val("tensor", ty, expr=var)
        if checkpoint:
            self.checkpoints.append(name)

    @staticmethod
    def ins_outs(text):
        def group(key):
            m = re.search(r"\b%s\(([^()]*)\)" % key, text)
            if not m:
                return [], []
            inner = m.group(1)
            if ":" not in inner:
                raise TranslateError("cannot parse %s(%s)" % (key, inner))
            vals, types = inner.split(":", 1)
            return ([v.strip() for v in vals.split(",") if v.strip()],
                    [parse_type(t) for t in split_top(types)])
        return group("ins"), group("outs")

    def attr_dict(self, rest):
        """The leading {...} (or #alias of one) of `rest` as key -> text, and
        what follows."""
        rest = rest.strip()
        m = re.match(r"(#[\w.$-]+)", rest)
        if m and m.group(1) in self.module.aliases:
            rest = self.module.aliases[m.group(1)] + rest[m.end():]
        if not rest.startswith("{"):
            return {}, rest
        end = matching(rest, 0)
        attrs = {}
        for item in split_top(rest[1:end]):
            if "=" in item:
                k, v = item.split("=", 1)
                attrs[k.strip()] = self.module.resolve(v.strip())
            else:
                attrs[item.strip()] = "unit"
        return attrs, rest[end + 1:].strip()

    @staticmethod
    def int_list(text, n):
        m = re.match(r"\s*(?:dense<(.*?)>|array<i64:(.*?)>)", text)
        if not m:
            raise TranslateError("cannot parse integer list " + text)
        inner = (m.group(1) if m.group(1) is not None else m.group(2)).strip()
        if inner.startswith("["):
            vals = [int(x) for x in inner.strip("[]").split(",")]
        elif m.group(2) is not None:
            vals = [int(x) for x in inner.split(",")]
        else:
            vals = [int(inner)] * n
        return vals

    # -- ops
    def op(self, st):
        names, opname, rest = split_result(st.text)
        self.op_counts[opname] = self.op_counts.get(opname, 0) + 1
        handler = {
            "arith.constant": self.constant,
            "tensor.empty": self.empty,
            "linalg.fill": self.fill,
            "linalg.matmul": self.matmul,
            "linalg.batch_matmul": self.matmul,
            "linalg.generic": self.generic,
            "linalg.conv_2d_nhwc_hwcf": self.conv,
            "linalg.conv_2d_nchw_fchw": self.conv,
            "linalg.pooling_nhwc_max": self.pool,
            "linalg.pooling_nchw_max": self.pool,
            "linalg.pooling_nchw_sum": self.pool,
            "arith.cmpi": self.cmpi,
            "cf.assert": self.assert_,
            "linalg.transpose": self.transpose,
            "tensor.pad": self.pad,
            "tensor.extract": self.extract,
            "tensor.cast": self.cast,
            "tensor.collapse_shape": self.reshape,
            "tensor.expand_shape": self.reshape,
            "return": self.ret,
            "func.return": self.ret,
        }.get(opname)
        if handler is None:
            raise TranslateError("line %d: op '%s' is not supported by the translator"
                                 % (st.line, opname))
        handler(names, rest, st)

    def constant(self, names, rest, st):
        if rest.strip() in ("true", "false"):  # an i1 has no written type
            self.define(names, Val("scalar", "i1", value=int(rest.strip() == "true")))
            return
        value, ty = rest.rsplit(":", 1)
        ty = parse_type(ty)
        value = value.strip()
        if not isinstance(ty, TensorType):
            if value in ("true", "false"):
                v = 1 if value == "true" else 0
            else:
                v = parse_number(value, ty)
            if ty in FLOAT_TYPES:
                v = float(v) if ty != "f32" else f32(float(v))
            self.define(names, Val("scalar", ty, value=v))
            return
        if value.startswith("dense_resource"):
            raise TranslateError("dense_resource constants are not supported")
        m = re.fullmatch(r"dense<(.*)>", value, re.S)
        if not m:
            raise TranslateError("unsupported constant %s (only dense<...>)" % value[:60])
        inner = m.group(1).strip()
        splat = None
        if inner.startswith('"'):
            hexdata = inner.strip('"')
            nbytes = (len(hexdata) - 2) // 2
            esize = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i8": 1,
                     "i1": 1}.get(ty.dtype)
            if esize is None:
                raise TranslateError("unsupported constant element type " + ty.dtype)
            if nbytes == esize:
                raw = bytes.fromhex(hexdata[2:])
                fmt = {"f32": "<f", "f64": "<d", "f16": "<e", "i64": "<q", "i32": "<i",
                       "i8": "<b", "i1": "<?"}.get(ty.dtype)
                if fmt is None:
                    raise TranslateError("unsupported constant element type " + ty.dtype)
                splat = struct.unpack(fmt, raw)[0]
                data = None
            else:
                data = ("hex", hexdata)
        elif inner.startswith("["):
            data = ("list", inner)
        else:
            splat = parse_number(inner, ty.dtype)
            data = None
        if splat is not None:
            splat = f32(float(splat)) if ty.dtype == "f32" else splat
        v = Val("const", ty, value=splat, name=names[0], data=data)
        self.define(names, v)

    def empty(self, names, rest, st):
        ty = parse_type(rest.rsplit(":", 1)[1])
        self.define(names, Val("empty", ty))

    def fill(self, names, rest, st):
        (ins, _), (outs, otys) = self.ins_outs(rest)
        s = self.get(ins[0])
        if s.kind != "scalar":
            raise TranslateError("linalg.fill of a value not known at translation")
        self.get(outs[0])
        self.define(names, Val("fill", otys[0], value=s.value))

    def init_of(self, name, reducer):
        """None when output `name` is the identity of `reducer` (nothing to add)."""
        v = self.get(name)
        if v.kind == "empty":
            raise TranslateError("the output of a reduction/contraction is uninitialised")
        if v.splat() is not None and v.splat() == IDENTITY[reducer]:
            return None
        return v

    def combine_init(self, rhs, init, reducer, uses):
        if init is None:
            return rhs, uses
        e = self.tensor_expr(init, "the initial value")
        if reducer == "sum":
            return "%s + %s" % (e, rhs), uses + [e]
        fn = {"amax": "torch.maximum", "amin": "torch.minimum", "prod": "torch.mul"}[reducer]
        return "%s(%s, %s)" % (fn, e, rhs), uses + [e]

    def matmul(self, names, rest, st):
        attrs, rest2 = self.attr_dict(rest)
        if "indexing_maps" in attrs:
            raise TranslateError("linalg.matmul with indexing_maps is not supported")
        (ins, _), (outs, otys) = self.ins_outs(rest2)
        a, b = (self.get(x) for x in ins)
        ea, eb = self.tensor_expr(a, "matmul"), self.tensor_expr(b, "matmul")
        init = self.init_of(outs[0], "sum")
        rhs, uses = self.combine_init("%s @ %s" % (ea, eb), init, "sum", [ea, eb])
        self.new_tensor(names, otys[0], rhs, uses, checkpoint=True)

    def transpose(self, names, rest, st):
        (ins, _), (outs, otys) = self.ins_outs(rest)
        m = re.search(r"permutation\s*=\s*\[([^\]]*)\]", rest)
        perm = [int(x) for x in m.group(1).split(",")]
        x = self.tensor_expr(self.get(ins[0]), "transpose")
        self.new_tensor(names, otys[0], self.permute_expr(x, perm), [x])

    @staticmethod
    def permute_expr(e, perm):
        if list(perm) == list(range(len(perm))):
            return e
        if len(perm) == 2:
            return "%s.t()" % e
        return "%s.permute(%s)" % (e, ", ".join(str(p) for p in perm))

    def window_geometry(self, rest):
        """(attrs' strides, dilations), ((ins, types), (outs, types)) of a conv or pooling."""
        attrs, rest2 = self.attr_dict(rest)
        strides = self.int_list(attrs.get("strides", "dense<1>"), 2)
        dil = self.int_list(attrs.get("dilations", "dense<1>"), 2)
        return strides, dil, self.ins_outs(rest2)

    @staticmethod
    def window_args(strides, dil):
        args = []
        if strides != [1, 1]:
            args.append("stride=(%d, %d)" % tuple(strides))
        if dil != [1, 1]:
            args.append("dilation=(%d, %d)" % tuple(dil))
        return args

    def conv(self, names, rest, st):
        """conv_2d_nhwc_hwcf on NCHW views (channels_last in memory), or
        conv_2d_nchw_fchw as it is."""
        nchw = split_result(st.text)[1] == "linalg.conv_2d_nchw_fchw"
        strides, dil, ((ins, itys), (outs, otys)) = self.window_geometry(rest)
        x, w = self.get(ins[0]), self.get(ins[1])
        if nchw:
            n, c, h, wd = itys[0].shape
            f, kc, kh, kw = itys[1].shape
        else:
            n, h, wd, c = itys[0].shape
            kh, kw, kc, f = itys[1].shape
        oh = (h - dil[0] * (kh - 1) - 1) // strides[0] + 1
        ow = (wd - dil[1] * (kw - 1) - 1) // strides[1] + 1
        if kc != c or otys[0].shape != ((n, f, oh, ow) if nchw else (n, oh, ow, f)):
            raise TranslateError("conv shapes do not agree: %s, %s -> %s" % (itys[0], itys[1],
                                                                              otys[0]))
        ex = self.tensor_expr(x, "conv")
        if nchw:
            ew = self.const_tensor(w) if w.kind == "const" else self.tensor_expr(w, "conv")
            image, layout = ex, ""
        elif w.kind == "const":
            base = self.const_tensor(w)
            ew = base + "_oihw"
            self.constants[ew] = ("oihw", base)
            image, layout = "%s.permute(0, 3, 1, 2)" % ex, ".permute(0, 2, 3, 1)"
        else:
            ew = "%s.permute(3, 2, 0, 1)" % self.tensor_expr(w, "conv")
            image, layout = "%s.permute(0, 3, 1, 2)" % ex, ".permute(0, 2, 3, 1)"
        rhs = "F.conv2d(%s)%s" % (", ".join([image, ew] + self.window_args(strides, dil)),
                                  layout)
        init = self.init_of(outs[0], "sum")
        rhs, uses = self.combine_init(rhs, init, "sum", [ex, ew.split(".")[0]])
        self.new_tensor(names, otys[0], rhs, uses, checkpoint=True)

    def pool(self, names, rest, st):
        """pooling_nhwc_max on the NCHW view, pooling_nchw_max and _sum as they are."""
        opname = split_result(st.text)[1]
        nchw = opname.startswith("linalg.pooling_nchw")
        strides, dil, ((ins, itys), (outs, otys)) = self.window_geometry(rest)
        if nchw:
            n, c, h, wd = itys[0].shape
        else:
            n, h, wd, c = itys[0].shape
        kh, kw = itys[1].shape
        oh = (h - dil[0] * (kh - 1) - 1) // strides[0] + 1
        ow = (wd - dil[1] * (kw - 1) - 1) // strides[1] + 1
        if otys[0].shape != ((n, c, oh, ow) if nchw else (n, oh, ow, c)):
            raise TranslateError("pooling shapes do not agree")
        ex = self.tensor_expr(self.get(ins[0]), "pooling")
        image = ex if nchw else "%s.permute(0, 3, 1, 2)" % ex
        args = [image, "(%d, %d)" % (kh, kw), "stride=(%d, %d)" % tuple(strides)]
        if opname == "linalg.pooling_nchw_sum":
            if dil != [1, 1]:
                raise TranslateError("a dilated sum pooling")
            rhs, reducer = "F.avg_pool2d(%s, divisor_override=1)" % ", ".join(args), "sum"
        else:
            args += self.window_args([1, 1], dil)
            rhs, reducer = "F.max_pool2d(%s)" % ", ".join(args), "amax"
        if not nchw:
            rhs += ".permute(0, 2, 3, 1)"
        init = self.init_of(outs[0], reducer)
        rhs, uses = self.combine_init(rhs, init, reducer, [ex])
        self.new_tensor(names, otys[0], rhs, uses, checkpoint=True)

    def cmpi(self, names, rest, st):
        m = re.match(r"(\w+),\s*(%[\w.$-]+),\s*(%[\w.$-]+)", rest)
        a, b = (self.get(m.group(2)), self.get(m.group(3))) if m else (None, None)
        if not m or a.kind != "scalar" or b.kind != "scalar" or m.group(1) not in ("eq", "ne"):
            raise TranslateError("arith.cmpi other than eq/ne of known scalars")
        same = a.value == b.value
        self.define(names, Val("scalar", "i1", value=int(same == (m.group(1) == "eq"))))

    def assert_(self, names, rest, st):
        cond = self.get(rest.split(",")[0].strip())
        if cond.kind != "scalar" or not cond.value:
            raise TranslateError("cf.assert whose condition is not known to hold")

    def pad(self, names, rest, st):
        m = re.match(r"(?:nofold\s+)?(%[\w.$-]+)\s+low\[([^\]]*)\]\s+high\[([^\]]*)\]", rest)
        if not m:
            raise TranslateError("cannot parse tensor.pad")
        src = self.get(m.group(1))
        low = [int(x) for x in m.group(2).split(",")]
        high = [int(x) for x in m.group(3).split(",")]
        body = [s for s in (st.region or []) if not s.label]
        if len(body) != 1 or not body[0].text.startswith("tensor.yield"):
            raise TranslateError("tensor.pad with a computed padding value")
        pv = self.get(body[0].text.split()[1])
        if pv.kind != "scalar":
            raise TranslateError("tensor.pad with a padding value not known at translation")
        tm = re.search(r":\s*(tensor<[^>]*>)\s+to\s+(tensor<[^>]*>)", st.tail)
        out_ty = parse_type(tm.group(2))
        spec = []
        for lo, hi in zip(reversed(low), reversed(high)):
            spec += [lo, hi]
        while len(spec) > 2 and spec[-1] == 0 and spec[-2] == 0:
            spec = spec[:-2]
        ex = self.tensor_expr(src, "pad")
        self.new_tensor(names, out_ty, "F.pad(%s, (%s), value=%s)" % (
            ex, ", ".join(str(p) for p in spec), literal(pv.value)), [ex], checkpoint=True)

    def extract(self, names, rest, st):
        m = re.match(r"(%[\w.$-]+)\[([^\]]*)\]", rest)
        src = self.get(m.group(1))
        idx = [i.strip() for i in m.group(2).split(",") if i.strip()]
        if src.splat() is None:
            raise TranslateError("tensor.extract from a tensor not known at translation")
        if idx:
            raise TranslateError("tensor.extract with indices is not supported")
        self.note_const(src, "scalar")
        self.define(names, Val("scalar", src.type.dtype, value=src.splat()))

    def cast(self, names, rest, st):
        m = re.match(r"(%[\w.$-]+)\s*:\s*(.*)\s+to\s+(.*)$", rest)
        src = self.get(m.group(1))
        if parse_type(m.group(3)) != src.type:
            raise TranslateError("tensor.cast changing the type is not supported")
        self.define(names, src)

    def reshape(self, names, rest, st):
        m = re.match(r"(%[\w.$-]+)", rest)
        src = self.get(m.group(1))
        out_ty = parse_type(rest.rsplit("into", 1)[1])
        ex = self.tensor_expr(src, "reshape")
        self.new_tensor(names, out_ty, "%s.reshape(%r)" % (ex, out_ty.shape), [ex])

    def ret(self, names, rest, st):
        vals = rest.split(":", 1)[0] if rest.strip() else ""
        self.results = []
        for n in [v.strip() for v in vals.split(",") if v.strip()]:
            v = self.get(n)
            e = self.tensor_expr(v, "return")
            self.results.append(e)

    # -- linalg.generic
    def generic(self, names, rest, st):
        attrs, rest2 = self.attr_dict(rest)
        if "indexing_maps" not in attrs or "iterator_types" not in attrs:
            raise TranslateError("linalg.generic without indexing_maps/iterator_types")
        maps = [AffineMap(m) for m in split_top(attrs["indexing_maps"].strip()[1:-1])]
        iters = re.findall(r"parallel|reduction|window", attrs["iterator_types"])
        (ins, itys), (outs, otys) = self.ins_outs(rest2)
        if len(outs) != 1:
            raise TranslateError("linalg.generic with %d outputs is not supported" % len(outs))
        if len(maps) != len(ins) + 1 or any(m.ndims != len(iters) for m in maps):
            raise TranslateError("linalg.generic: maps do not match operands")
        body = [s for s in (st.region or []) if not s.label]
        labels = [s for s in (st.region or []) if s.label]
        if len(labels) != 1:
            raise TranslateError("linalg.generic with %d blocks" % len(labels))
        bargs = re.findall(r"(%[\w.$-]+)\s*:", labels[0].label)
        if len(bargs) != len(ins) + 1:
            raise TranslateError("linalg.generic: block arguments do not match operands")
        # loop sizes from the operands' shapes
        sizes = [None] * len(iters)
        for m, ty in zip(maps, itys + otys):
            for r, s in zip(m.results, ty.shape):
                if not isinstance(r, tuple):
                    if sizes[r] not in (None, s):
                        raise TranslateError("linalg.generic: inconsistent loop sizes")
                    sizes[r] = s
        if None in sizes:
            raise TranslateError("linalg.generic: a loop no operand spans")
        if not body or not body[-1].text.startswith("linalg.yield"):
            raise TranslateError("linalg.generic without linalg.yield")
        yielded = body[-1].text.split()[1]
        if "reduction" in iters:
            self.reduction(names, ins, outs, maps, iters, sizes, bargs, body, yielded, otys[0])
        elif "window" in iters:
            raise TranslateError("window iterators are not supported")
        else:
            self.elementwise(names, ins, outs, maps, sizes, bargs, body, yielded, otys[0])

    def aligned(self, v, amap, sizes, what, as_tensor=False):
        """Term for operand v read through amap, its dims in loop order (a splat
        constant as a Python scalar unless as_tensor)."""
        s = v.splat()
        if s is not None and v.kind != "tensor" and not as_tensor:
            self.note_const(v, "scalar")
            return Term(literal(s), scalar=s)
        e = self.tensor_expr(v, what)
        res = amap.results
        idx_const = [i for i, r in enumerate(res) if isinstance(r, tuple)]
        for i in idx_const:
            if res[i][1] != 0 or v.shape[i] != 1:
                raise TranslateError("indexing map %s reads a slice" % amap.text)
        dims = [r for r in res if not isinstance(r, tuple)]
        if len(set(dims)) != len(dims):
            raise TranslateError("indexing map %s reads a diagonal" % amap.text)
        expr = e
        if idx_const:
            expr += "[%s]" % ", ".join("0" if isinstance(r, tuple) else ":" for r in res)
        order = sorted(range(len(dims)), key=lambda i: dims[i])
        if order != list(range(len(dims))):
            expr = self.permute_expr(expr, order)
        present = sorted(dims)
        shape = [1] * len(sizes)
        for d in present:
            shape[d] = sizes[d]
        if present:
            idx = [":" if d in present else "None" for d in range(present[0], len(sizes))]
            if "None" in idx:
                while idx and idx[-1] == ":":
                    idx.pop()
                expr += "[%s]" % ", ".join(idx)
        return Term(expr, shape=shape, uses=[e], origin=v)

    def body_env(self, ins, outs, maps, sizes, bargs, use_out, copied=None):
        env = {}
        operands = list(ins) + (list(outs) if use_out else [])
        for i, name in enumerate(operands):
            env[bargs[i]] = self.aligned(self.get(name), maps[i], sizes, "linalg.generic",
                                         as_tensor=bargs[i] == copied)
        return env

    def body_term(self, env, name):
        if name in env:
            return env[name]
        v = self.get(name)                      # a value from outside the body
        if v.kind != "scalar":
            raise TranslateError("body of linalg.generic reads %s from outside (not a scalar"
                                 " constant)" % name)
        return Term(literal(v.value), scalar=v.value)

    def elementwise(self, names, ins, outs, maps, sizes, bargs, body, yielded, out_ty):
        uses_out = any(re.search(re.escape(bargs[-1]) + r"\b", s.text) for s in body)
        # A copy (the body yields an operand): a view of that operand, which is
        # a tensor even when it is a splat constant (a weight, transposed).
        copied = yielded if len(body) == 1 else None
        env = self.body_env(ins, outs, maps, sizes, bargs, uses_out, copied)
        defs = {}
        for s in body[:-1]:
            res, opname, rest = split_result(s.text)
            args = [a.strip() for a in rest.split(":")[0].split(",")]
            env[res[0]] = self.body_op(opname, args, env, defs)
            defs[res[0]] = (opname, args)
        t = self.body_term(env, yielded)
        if t.is_scalar:
            expr = "torch.full(%r, %s, dtype=%s)" % (tuple(sizes), t.expr,
                                                    TORCH_DTYPE[out_ty.dtype])
            shape = list(sizes)
        else:
            expr, shape = t.expr, t.shape
        # A loop of size 1 may be missing from the term (read at a constant
        # 0, it was indexed away): expand restores the loops' rank.
        if list(shape) != list(sizes) or 1 in sizes:
            expr = "%s.expand(%s)" % (expr, ", ".join(str(s) for s in sizes))
        out_map = maps[-1]
        if any(isinstance(r, tuple) for r in out_map.results) or \
                sorted(out_map.results) != list(range(len(sizes))):
            raise TranslateError("output map %s is not a permutation" % out_map.text)
        expr = self.permute_expr(expr, out_map.results)
        self.new_tensor(names, out_ty, expr, sorted(t.uses))

    def body_op(self, opname, args, env, defs):
        ts = [self.body_term(env, a) for a in args if a.startswith("%")]
        uses = set().union(*[t.uses for t in ts]) if ts else set()

        def shape_of(*terms):
            shapes = [t.shape for t in terms if not t.is_scalar]
            if not shapes:
                return None
            return [max(d) for d in zip(*shapes)]

        if all(t.is_scalar for t in ts) and opname != "arith.cmpf":
            x = [t.scalar for t in ts]
            py = {"arith.addf": lambda: x[0] + x[1], "arith.subf": lambda: x[0] - x[1],
                  "arith.mulf": lambda: x[0] * x[1], "arith.divf": lambda: x[0] / x[1],
                  "arith.maximumf": lambda: max(x), "arith.minimumf": lambda: min(x),
                  "arith.negf": lambda: -x[0], "math.exp": lambda: math.exp(x[0]),
                  "arith.truncf": lambda: x[0], "math.sqrt": lambda: math.sqrt(x[0]),
                  "math.rsqrt": lambda: 1 / math.sqrt(x[0])}.get(opname)
            if py is None:
                raise TranslateError("body op %s on constants is not supported" % opname)
            v = f32(py())
            return Term(literal(v), scalar=v)
        binary = {"arith.addf": "+", "arith.subf": "-", "arith.mulf": "*", "arith.divf": "/"}
        if opname in binary:
            a, b = ts
            return Term("(%s %s %s)" % (a.expr, binary[opname], b.expr), shape=shape_of(a, b),
                        uses=uses)
        if opname in ("arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf"):
            a, b = ts
            big = opname in ("arith.maximumf", "arith.maxnumf")
            if a.is_scalar:
                a, b = b, a
            if b.is_scalar:
                if big and b.scalar == 0.0:
                    return Term("torch.relu(%s)" % a.expr, shape=a.shape, uses=uses)
                return Term("torch.clamp_%s(%s, %s)" % ("min" if big else "max", a.expr,
                                                        b.expr), shape=a.shape, uses=uses)
            fn = "torch.maximum" if big else "torch.minimum"
            return Term("%s(%s, %s)" % (fn, a.expr, b.expr), shape=shape_of(a, b), uses=uses)
        if opname == "arith.negf":
            return Term("(-%s)" % ts[0].expr, shape=ts[0].shape, uses=uses)
        if opname in UNARY:
            return Term("%s(%s)" % (UNARY[opname], ts[0].expr), shape=ts[0].shape, uses=uses)
        if opname == "arith.cmpf":
            pred = args[0]
            if pred not in CMP:
                raise TranslateError("arith.cmpf predicate %s is not supported" % pred)
            a, b = ts
            t = Term("(%s %s %s)" % (a.expr, CMP[pred], b.expr), shape=shape_of(a, b),
                     uses=uses, is_bool=True)
            t.cmp = (pred, a, b)
            return t
        if opname == "arith.select":
            c, a, b = ts
            cmp = getattr(c, "cmp", None)
            # relu written as a comparison with 0 and a select (torch-mlir's form)
            if cmp and b.is_scalar and b.scalar == 0.0 and not a.is_scalar:
                pred, x, y = cmp
                if pred in ("ugt", "ogt", "uge", "oge") and x is a and y.is_scalar \
                        and y.scalar == 0.0:
                    return Term("torch.relu(%s)" % a.expr, shape=a.shape, uses=a.uses)
            return Term("torch.where(%s, %s, %s)" % (c.expr, a.expr, b.expr),
                        shape=shape_of(c, a, b), uses=uses)
        raise TranslateError("body op '%s' of linalg.generic is not supported" % opname)

    def reduction(self, names, ins, outs, maps, iters, sizes, bargs, body, yielded, out_ty):
        if len(ins) != 1 or len(body) != 2:
            raise TranslateError("only reductions of one input by one combining op are"
                                 " supported (sum, max, min, product)")
        res, opname, rest = split_result(body[0].text)
        args = [a.strip() for a in rest.split(":")[0].split(",")]
        if opname not in REDUCER or sorted(args) != sorted(bargs) or yielded != res[0]:
            raise TranslateError("reduction body %s is not supported" % body[0].text)
        reducer = REDUCER[opname]
        in_map, out_map = maps
        if sorted(in_map.results) != list(range(len(iters))):
            raise TranslateError("reduction input map %s is not a permutation" % in_map.text)
        x = self.get(ins[0])
        ex = self.tensor_expr(x, "reduction")
        red = [i for i, d in enumerate(in_map.results) if iters[d] == "reduction"]
        kept = [d for d in in_map.results if iters[d] != "reduction"]
        # keepdim when the output map is the input map with reduced dims as 0
        keep = (len(out_map.results) == len(in_map.results) and all(
            (isinstance(o, tuple) and o == ("c", 0)) if iters[d] == "reduction" else o == d
            for o, d in zip(out_map.results, in_map.results)))
        rhs = "torch.%s(%s, dim=(%s)%s)" % (reducer, ex, ", ".join(str(r) for r in red) +
                                             ("," if len(red) == 1 else ""),
                                             ", keepdim=True" if keep else "")
        if not keep:
            out_dims = out_map.dims()
            if sorted(out_dims) != sorted(kept):
                raise TranslateError("reduction output map %s" % out_map.text)
            perm = [kept.index(d) for d in out_dims]
            rhs = self.permute_expr(rhs, perm)
            if len(out_map.results) != len(out_dims):
                rhs = "%s.reshape(%r)" % (rhs, out_ty.shape)
        init = self.init_of(outs[0], reducer)
        rhs, uses = self.combine_init(rhs, init, reducer, [ex])
        self.new_tensor(names, out_ty, rhs, uses, checkpoint=True)

    # -- source
    def _source(self):
        results = set(self.results)
        params = [pyname(n) for n, _ in self.func.args]
        needed = set(results)
        live = []
        for code, define, uses in reversed(self.stmts):      # dead code out
            if define is None or define in needed:
                live.append((code, define, uses))
                needed |= uses
        live.reverse()
        last = {}
        for i, (code, define, uses) in enumerate(live):
            for u in uses:
                last[u] = i
        lines = ["def forward(%s):" % ", ".join(params)]
        for i, (code, define, uses) in enumerate(live):
            lines.append("    " + code)
            dead = sorted(u for u in uses if last.get(u) == i and u not in results
                          and u not in params and not u.startswith("K_"))
            if dead:
                lines.append("    del " + ", ".join(dead))
        self.live_constants = sorted(set(u for _, _, uses in live for u in uses
                                         if u.startswith("K_")))
        if len(self.results) == 1:
            lines.append("    return %s" % self.results[0])
        else:
            lines.append("    return (%s)" % ", ".join(self.results))
        return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Verification variants (text): more results, constants as arguments


def variant(text, extras=False, lift=False, entry=None):
    """The module with (extras) the results of its matmuls, convs, pools, pads
    and reductions returned too, and (lift) the tensor constants the
    translation uses as tensors (weights) turned into trailing arguments.
    Returns (text, lifted) with lifted = [(ssa name, Val)] in argument order."""
    tr = Translation(text, entry)
    func = tr.func
    lines = text.splitlines()
    lifted = []
    drop = set()
    if lift:
        for st in func.body:
            if st.label:
                continue
            names, opname, _ = split_result(st.text)
            if opname == "arith.constant" and names[0] in tr.const_uses and \
                    "tensor" in tr.const_uses[names[0]] and \
                    "scalar" not in tr.const_uses[names[0]]:
                if st.first != st.last:
                    raise TranslateError("line %d: multi-line constant" % st.line)
                lifted.append((names[0], tr.env[names[0]]))
                drop.add(st.first)
    ret = [st for st in func.body if not st.label and
           split_result(st.text)[1] in ("return", "func.return")][0]
    ret_vals = [v.strip() for v in ret.text.split(None, 1)[1].split(":")[0].split(",")]
    extra = [n for n in tr.checkpoints if n not in ret_vals] if extras else []
    types = [str(t) for t in func.result_types] + [str(tr.env[n].type) for n in extra]
    args = ["%s: %s" % (n, t) for n, t in func.args] + ["%s: %s" % (n, v.type)
                                                        for n, v in lifted]
    header = "func.func @%s(%s) -> (%s) {" % (func.name, ", ".join(args), ", ".join(types))
    new_ret = "  return %s : %s" % (", ".join(ret_vals + extra), ", ".join(types))
    out = []
    i = 0
    while i < len(lines):
        if i == func.stmt.first:
            out.append(header)
            i = func.stmt.last + 1 if func.stmt.region is None else _header_end(func, lines)
            continue
        if ret.first <= i <= ret.last:
            if i == ret.first:
                out.append(new_ret)
            i += 1
            continue
        if i in drop:
            i += 1
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out) + "\n", lifted


def _header_end(func, lines):
    """The line after the function header (the header ends with its '{')."""
    i = func.stmt.first
    while _brace_balance(" ".join(_strip_comment(l) for l in lines[func.stmt.first:i + 1])) <= 0:
        i += 1
    return i + 1


# --------------------------------------------------------------------------
# The torch side


class TorchProgram:
    """The translated function, its constants built (untimed)."""

    def __init__(self, text, entry=None):
        import numpy as np
        import torch
        import torch.nn.functional as F
        self.translation = tr = Translation(text, entry)
        self.source = tr.source
        self.arg_types = [t for _, t in tr.func.args]
        ns = {"torch": torch, "F": F, "inf": math.inf, "nan": math.nan}
        built = {}

        def build(g):
            if g in built:
                return built[g]
            spec = tr.constants[g]
            if spec[0] == "full":
                _, shape, dtype, value = spec
                t = torch.full(shape, value, dtype=eval(TORCH_DTYPE[dtype], {"torch": torch}))
            elif spec[0] == "data":
                _, shape, dtype, (form, data) = spec
                npdt = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
                        "i64": np.int64, "i32": np.int32, "i8": np.int8}[dtype]
                if form == "hex":
                    arr = np.frombuffer(bytes.fromhex(data[2:]), dtype=npdt)
                else:
                    toks = [x for x in re.split(r"[\[\],\s]+", data) if x]
                    arr = np.array([parse_number(x, dtype) for x in toks], dtype=npdt)
                t = torch.from_numpy(arr.reshape(shape).copy())
            elif spec[0] == "oihw":
                t = build(spec[1]).permute(3, 2, 0, 1).contiguous(
                    memory_format=torch.channels_last)
            else:
                raise TranslateError("unknown constant spec %r" % (spec,))
            built[g] = t
            return t

        for g in tr.live_constants:
            ns[g] = build(g)
        built.clear()
        exec(compile(tr.source, "<translated %s>" % tr.func.name, "exec"), ns)
        self.forward = ns["forward"]
        self.n_results = len(tr.results)

    def __call__(self, *args):
        out = self.forward(*args)
        return out if isinstance(out, tuple) else (out,)


def compare(ours, reference, rtol=1e-3, atol_scale=5e-4):
    """Elementwise |ours - reference| <= rtol*|reference| + atol_scale*max|reference|
    over the finite elements; infinities (a max pooling's -inf padding) only
    where the other holds the same one, no NaN. Returns a dict of the figures."""
    import numpy as np
    a = np.asarray(ours, dtype=np.float64)
    r = np.asarray(reference, dtype=np.float64)
    if a.shape != r.shape:
        return {"pass": False, "why": "shape %s vs %s" % (a.shape, r.shape)}
    inf = np.isinf(r)
    finite = bool(not np.isnan(a).any() and not np.isnan(r).any() and
                  (np.isinf(a) == inf).all() and (a[inf] == r[inf]).all())
    a, r = np.where(inf, 0.0, a), np.where(inf, 0.0, r)
    scale = float(np.abs(r).max()) if r.size else 0.0
    diff = np.abs(a - r)
    max_abs = float(diff.max()) if r.size else 0.0
    big = np.abs(r) >= 1e-3 * scale
    max_rel = float((diff[big] / np.abs(r[big])).max()) if big.any() else 0.0
    ok = finite and bool((diff <= rtol * np.abs(r) + atol_scale * scale).all())
    return {"pass": ok, "finite": finite, "max_abs": max_abs, "max_rel": max_rel,
            "max_abs_over_scale": max_abs / scale if scale else max_abs, "scale": scale,
            "distinct_values": int(np.unique(r).size) if r.size <= 1 << 24 else -1}


# --------------------------------------------------------------------------
# Worker for end_to_end.py: JSON lines on stdin/stdout


def serve(threads):
    import numpy as np
    import torch
    torch.set_num_threads(threads)
    state = {}

    def reply(obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    def load_inputs(folder, n):
        return [torch.from_numpy(np.load(os.path.join(folder, "arg%d.npy" % i)))
                for i in range(n)]

    for line in sys.stdin:
        cmd = json.loads(line)
        try:
            if cmd["cmd"] == "prepare":
                # The program (a variant of it for verification), its translation
                # and its inputs: uniform [-1, 1) for the original arguments, the
                # constant's value times a factor in [0.5, 1.5) for lifted ones.
                text = open(cmd["mlir"]).read()
                lifted = []
                if cmd.get("extras") or cmd.get("lift"):
                    text, lifted = variant(text, extras=cmd.get("extras", False),
                                           lift=cmd.get("lift", False))
                folder = cmd["dir"]
                os.makedirs(os.path.join(folder, "in"), exist_ok=True)
                path = os.path.join(folder, "program.mlir")
                with open(path, "w") as f:
                    f.write(text)
                state.pop("program", None)
                prog = TorchProgram(text)
                rng = np.random.default_rng(cmd.get("seed", 0))
                n_orig = len(prog.arg_types) - len(lifted)
                for i, ty in enumerate(prog.arg_types):
                    if ty.dtype != "f32":
                        raise TranslateError("only f32 arguments are supported")
                    if i < n_orig:
                        arr = rng.uniform(-1, 1, ty.shape).astype(np.float32)
                    else:
                        v = lifted[i - n_orig][1]
                        if v.data is not None:
                            raise TranslateError("lifting non-splat constants is not"
                                                 " supported")
                        arr = (v.value * rng.uniform(0.5, 1.5, ty.shape)).astype(np.float32)
                    np.save(os.path.join(folder, "in", "arg%d.npy" % i), arr)
                state["program"] = prog
                state["inputs"] = load_inputs(os.path.join(folder, "in"), len(prog.arg_types))
                reply({"ok": True, "mlir": path, "inputs": os.path.join(folder, "in"),
                       "results": prog.n_results, "lifted": len(lifted),
                       "ops": sum(prog.translation.op_counts.values()),
                       "source_lines": prog.source.count("\n")})
            elif cmd["cmd"] == "compare":
                prog = state["program"]
                with torch.inference_mode():
                    outs = prog(*state["inputs"])
                rows = []
                for i, o in enumerate(outs):
                    ref = np.load(os.path.join(cmd["outputs"], "result%d.npy" % i))
                    row = compare(o.numpy(), ref)
                    rows.append(row)
                reply({"ok": True, "rows": rows, "pass": all(r["pass"] for r in rows)})
            elif cmd["cmd"] == "time":
                prog = state["program"]
                args = state["inputs"]
                times = []
                with torch.inference_mode():
                    for _ in range(cmd.get("warmup", 1)):
                        prog(*args)
                    for _ in range(cmd["iters"]):
                        start = time.perf_counter()
                        prog(*args)
                        times.append((time.perf_counter() - start) * 1e3)
                reply({"ok": True, "ms": statistics.median(times), "all": times})
            elif cmd["cmd"] == "info":
                reply({"ok": True, "torch": torch.__version__, "threads": torch.get_num_threads(),
                       "mkldnn": torch.backends.mkldnn.is_available(),
                       "env": {k: os.environ.get(k) for k in (
                           "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}})
            elif cmd["cmd"] == "source":
                reply({"ok": True, "source": state["program"].source})
            else:
                reply({"ok": False, "error": "unknown command %r" % cmd["cmd"]})
        except TranslateError as e:
            reply({"ok": False, "error": str(e)})
        except Exception as e:  # reported to the driver, which prints it
            import traceback
            reply({"ok": False, "error": "%s: %s" % (type(e).__name__, e),
                   "trace": traceback.format_exc()})


def main():
    import argparse
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mlir", nargs="?")
    p.add_argument("--entry")
    p.add_argument("--serve", action="store_true")
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    if a.serve:
        serve(a.threads)
        return 0
    if not a.mlir:
        p.error("an MLIR file is required")
    try:
        tr = Translation(open(a.mlir).read(), a.entry)
    except TranslateError as e:
        print("%s: error: %s" % (a.mlir, e), file=sys.stderr)
        return 1
    for g, spec in sorted(tr.constants.items()):
        if g in tr.live_constants:
            if spec[0] == "full":
                desc = "torch.full(%r, %s)" % (spec[1], literal(spec[3]))
            elif spec[0] == "oihw":
                desc = "%s.permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last)" \
                    % spec[1]
            else:
                desc = "<data of %r>" % (spec[1],)
            print("# %s = %s" % (g, desc))
    print(tr.source, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
