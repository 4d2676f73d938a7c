#!/usr/bin/env python3
"""Prints the values of .npy files (the simple formats spmd-run writes):
one line per file, `name: v0 v1 ...`. Used by lit tests without numpy."""
import ast
import struct
import sys

FORMATS = {"<f4": "f", "<f8": "d", "<f2": "e", "|b1": "?", "|i1": "b",
           "<i1": "b", "<i2": "h", "<i4": "i", "<i8": "q"}


def read_npy(path):
    """(shape, values) of a little-endian, C-order .npy file."""
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", path
    header_len = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + header_len].decode("latin1"))
    count = 1
    for s in header["shape"]:
        count *= s
    code = FORMATS[header["descr"]]
    return tuple(header["shape"]), struct.unpack(
        "<%d%s" % (count, code), data[10 + header_len:])


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print("%s: %s" % (path.rsplit("/", 1)[-1],
                          " ".join(repr(v) for v in read_npy(path)[1])))
