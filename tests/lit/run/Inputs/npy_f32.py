"""Writes or prints a 1-D f32 .npy file with the standard library only.

  npy_f32.py write FILE V1 V2 ...   (values as Python floats: -0.0, inf)
  npy_f32.py print FILE             (one value per line, repr)
"""
import struct
import sys


def write(path, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    (length,) = struct.unpack("<H", data[8:10])
    body = data[10 + length:]
    return struct.unpack("<%df" % (len(body) // 4), body)


if sys.argv[1] == "write":
    write(sys.argv[2], [float(v) for v in sys.argv[3:]])
else:
    for v in read(sys.argv[2]):
        print(repr(v))
