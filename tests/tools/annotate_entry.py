#!/usr/bin/env python3
"""Shards the first argument of a module's entry functions on dimension 0.

Usage: annotate_entry.py FILE.mlir [AXIS_SIZE]

Entry functions are those no other function calls. Adds
`spmd.mesh @mesh = <["x"=AXIS_SIZE]>` (default 4) to the module and
`{spmd.sharding = #spmd.sharding<@mesh, [{"x"}, {}, ...]>}` to the first
argument of each entry, and prints the result. Used by tests that run the
compiler on third-party models, which carry no annotations.
"""
import re
import sys


def main():
    path = sys.argv[1]
    axis = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    text = open(path).read()

    defined = re.findall(r"func\.func\s+(?:private\s+|public\s+)?@([\w$.]+)\s*\(", text)
    called = set(re.findall(r"call\s+@([\w$.]+)", text))
    entries = [name for name in defined if name not in called]

    aliases = dict(re.findall(r"^(![\w$.]+)\s*=\s*tensor<([^>]*)>", text, re.M))
    for name in entries:
        header = re.search(r"func\.func\s+(?:public\s+)?@" + re.escape(name) +
                           r"\s*\(\s*(%[\w$.]+)\s*:\s*(tensor<([^>]*)>|![\w$.]+)",
                           text)
        if not header:
            continue
        shape = header.group(3) or aliases.get(header.group(2))
        if shape is None:
            continue
        dims = shape.split("x")[:-1]
        spec = ", ".join(['{"x"}'] + ["{}"] * (len(dims) - 1))
        attr = (' {spmd.sharding = #spmd.sharding<@mesh, [%s]>}' % spec)
        end = header.end()
        text = text[:end] + attr + text[end:]

    mesh = 'spmd.mesh @mesh = <["x"=%d]>\n' % axis
    module = re.search(r"^\s*module\b[^\n]*\{\s*$", text, re.M)
    if module:
        text = text[:module.end()] + "\n" + mesh + text[module.end():]
    else:
        text = mesh + text
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
