#!/usr/bin/env python3
"""Checkpoints exchanged with another safetensors implementation.

This script is that other implementation: a reader and a writer of the
format written from its specification with Python's standard library only.

  safetensors_interop.py SPMD_API_TESTS SPMD_RUN WORKDIR

1. It writes a file of every dtype and a hub-style folder (two files and
   model.safetensors.index.json); the API test CheckpointInterop loads them
   sharded on a 2x4 mesh, checks every byte, and saves them as a checkpoint,
   which this script reads back (index.json and every shard file) and
   compares with what it wrote.
2. spmd-run takes a program's inputs by argument name from a file written
   here and writes its results to a file read here.
"""
import json
import math
import os
import shutil
import struct
import subprocess
import sys

WIDTH = {"F32": 4, "F64": 8, "F16": 2, "BF16": 2, "BOOL": 1, "I8": 1,
         "I16": 2, "I32": 4, "I64": 8}
# The order of spmd::DType, whose position seeds each tensor's bytes.
DTYPES = ["F32", "F64", "F16", "BF16", "BOOL", "I8", "I16", "I32", "I64"]
SHAPE = [5, 12]


def patterned(dtype, shape, seed):
    """The bytes CheckpointTest's patterned() gives a tensor."""
    n = 1
    for d in shape:
        n *= d
    if dtype == "BOOL":
        return bytes(int((i * 7 + seed) % 3 == 0) for i in range(n))
    return bytes((i * 31 + seed) % 251 for i in range(n * WIDTH[dtype]))


def write_safetensors(path, tensors, metadata=None):
    """tensors: list of (name, dtype, shape, bytes), written in order."""
    header, offset = {}, 0
    if metadata:
        header["__metadata__"] = metadata
    for name, dtype, shape, data in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, _, _, data in tensors:
            f.write(data)


def read_safetensors(path):
    """{name: (dtype, shape, bytes)}, checking the format's rules."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    header.pop("__metadata__", None)
    data = blob[8 + n:]
    out, spans = {}, []
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        count = 1
        for d in entry["shape"]:
            count *= d
        assert end - begin == count * WIDTH[entry["dtype"]], name
        spans.append((begin, end))
        out[name] = (entry["dtype"], entry["shape"], data[begin:end])
    at = 0
    for begin, end in sorted(spans):
        assert begin == at, f"{path}: a hole or overlap at {begin}"
        at = end
    assert at == len(data), f"{path}: {len(data) - at} bytes not covered"
    return out


def assemble(folder):
    """Every tensor of a checkpoint folder, from its index and shards."""
    with open(os.path.join(folder, "index.json")) as f:
        index = json.load(f)
    files = {}
    tensors = {}
    for name, tensor in index["tensors"].items():
        dtype, shape = tensor["dtype"], tensor["shape"]
        width = WIDTH[dtype]
        whole = bytearray(width * math.prod(shape))
        for shard in tensor["shards"]:
            path = os.path.join(folder, shard["file"])
            if path not in files:
                files[path] = read_safetensors(path)
            begin, end = shard["begin"], shard["end"]
            # The shard is the entry whose bytes the byte range names.
            with open(path, "rb") as f:
                f.seek(shard["byte_range"][0])
                data = f.read(shard["byte_range"][1] - shard["byte_range"][0])
            assert any(entry[2] == data for entry in files[path].values())
            if not shape:
                whole[:] = data
                continue
            sizes = [e - b for b, e in zip(begin, end)]
            row = sizes[-1] * width
            rows = len(data) // row if row else 0
            for r in range(rows):
                # The global index of row r of the shard.
                index_, rest = [], r
                for d in reversed(sizes[:-1]):
                    index_.append(rest % d)
                    rest //= d
                index_ = list(reversed(index_))
                flat = 0
                for d, i in enumerate(index_):
                    flat = flat * shape[d] + begin[d] + i
                flat = flat * shape[-1] + begin[-1]
                whole[flat * width:flat * width + row] = \
                    data[r * row:(r + 1) * row]
        tensors[name] = (dtype, shape, bytes(whole))
    return tensors


def interop_with_the_api(api_tests, work):
    tensors = [(f"t_{dtype}", dtype, SHAPE, patterned(dtype, SHAPE, seed))
               for seed, dtype in enumerate(DTYPES)]
    write_safetensors(os.path.join(work, "other.safetensors"), tensors,
                      {"format": "pt"})
    hub = os.path.join(work, "hub")
    os.makedirs(hub)
    names = [t[0] for t in tensors]
    weight_map = {}
    for part, chunk in enumerate([tensors[:4], tensors[4:]]):
        file = f"model-0000{part + 1}-of-00002.safetensors"
        write_safetensors(os.path.join(hub, file), chunk)
        weight_map.update({t[0]: file for t in chunk})
    with open(os.path.join(hub, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f)

    env = dict(os.environ, SPMD_INTEROP_DIR=work)
    run = subprocess.run([api_tests, "--gtest_filter=CheckpointInterop.*"],
                         env=env, capture_output=True, text=True)
    print(run.stdout[-3000:], run.stderr[-3000:])
    if run.returncode != 0 or "[  PASSED  ] 1 test" not in run.stdout:
        sys.exit("the API test failed")

    ours = assemble(os.path.join(work, "ours"))
    assert sorted(ours) == sorted(names), sorted(ours)
    for name, dtype, shape, data in tensors:
        assert ours[name] == (dtype, shape, data), name
    print(f"read back {len(ours)} tensors of our checkpoint: equal")


PROGRAM = """
func.func @main(%x: tensor<4x3xf32>, %bias: tensor<4x3xf32>,
                %flags: tensor<4x3xi1>) -> (tensor<4x3xf32>, tensor<4x3xi1>) {
  %e = tensor.empty() : tensor<4x3xf32>
  %s = linalg.add ins(%x, %bias : tensor<4x3xf32>, tensor<4x3xf32>)
                  outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %s, %flags : tensor<4x3xf32>, tensor<4x3xi1>
}
"""


def inputs_by_name(spmd_run, work):
    program = os.path.join(work, "add.mlir")
    with open(program, "w") as f:
        f.write(PROGRAM)
    x = [float(i) * 0.5 for i in range(12)]
    bias = [100.0 - i for i in range(12)]
    flags = bytes(i % 2 for i in range(12))
    inputs = os.path.join(work, "inputs.safetensors")
    # By name for two arguments, by position (arg2) for the third.
    write_safetensors(inputs, [
        ("bias", "F32", [4, 3], struct.pack("<12f", *bias)),
        ("x", "F32", [4, 3], struct.pack("<12f", *x)),
        ("arg2", "BOOL", [4, 3], flags)])
    outputs = os.path.join(work, "outputs.safetensors")
    subprocess.run([spmd_run, program, f"--inputs={inputs}",
                    f"--outputs={outputs}", "--check"], check=True)
    results = read_safetensors(outputs)
    dtype, shape, data = results["result0"]
    assert (dtype, shape) == ("F32", [4, 3]), (dtype, shape)
    assert list(struct.unpack("<12f", data)) == \
        [a + b for a, b in zip(x, bias)]
    assert results["result1"] == ("BOOL", [4, 3], flags)
    print("spmd-run: inputs by name, outputs as resultN: equal")

    # An argument whose location names another file (as importers write)
    # has no name here: it is taken as argN.
    located = os.path.join(work, "located.mlir")
    with open(located, "w") as f:
        f.write(PROGRAM.replace("%x: tensor<4x3xf32>,",
                                '%x: tensor<4x3xf32> loc("model.py":4:3),'))
    # Line 4, column 3 of this file is where %e is: a name read at the
    # location, whatever file it names, would bind "e" here.
    write_safetensors(inputs, [
        ("bias", "F32", [4, 3], struct.pack("<12f", *bias)),
        ("x", "F32", [4, 3], bytes(48)),
        ("e", "F32", [4, 3], bytes(48)),
        ("arg0", "F32", [4, 3], struct.pack("<12f", *x)),
        ("arg2", "BOOL", [4, 3], flags)])
    subprocess.run([spmd_run, located, f"--inputs={inputs}",
                    f"--outputs={outputs}"], check=True)
    dtype, shape, data = read_safetensors(outputs)["result0"]
    assert list(struct.unpack("<12f", data)) == \
        [a + b for a, b in zip(x, bias)]

    # A tensor missing, of another shape, of another type, a bool that is
    # not 0 or 1, a truncated file: exit 2 with the file and tensor named.
    cases = {
        "no tensor 'arg0' or 'x' for argument 0": [
            ("bias", "F32", [4, 3], bytes(48)), ("arg2", "BOOL", [4, 3],
                                                  bytes(12))],
        "tensor 'x' is f32[3, 4]": [
            ("x", "F32", [3, 4], bytes(48)), ("bias", "F32", [4, 3],
                                               bytes(48)),
            ("arg2", "BOOL", [4, 3], bytes(12))],
        "tensor 'x' is f64[4, 3]": [
            ("x", "F64", [4, 3], bytes(96)), ("bias", "F32", [4, 3],
                                               bytes(48)),
            ("arg2", "BOOL", [4, 3], bytes(12))],
        "not a bool": [
            ("x", "F32", [4, 3], bytes(48)), ("bias", "F32", [4, 3],
                                               bytes(48)),
            ("arg2", "BOOL", [4, 3], bytes(11) + b"\x07")],
    }
    bad = os.path.join(work, "bad.safetensors")
    for expected, tensors in cases.items():
        write_safetensors(bad, tensors)
        run = subprocess.run([spmd_run, program, f"--inputs={bad}"],
                             capture_output=True, text=True)
        assert run.returncode == 2 and expected in run.stderr and \
            bad in run.stderr, (expected, run.returncode, run.stderr)
    with open(bad, "rb") as f:
        blob = f.read()
    with open(bad, "wb") as f:
        f.write(blob[:-5])
    run = subprocess.run([spmd_run, program, f"--inputs={bad}"],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "truncated" in run.stderr, run.stderr
    print("spmd-run: bad input files refused, naming file and tensor")

    # A tensor of a type the runtime lacks, bound to no argument, is read
    # past.
    write_safetensors(inputs, [
        ("q", "U8", [2], b"\x01\x02"),
        ("bias", "F32", [4, 3], struct.pack("<12f", *bias)),
        ("x", "F32", [4, 3], struct.pack("<12f", *x)),
        ("arg2", "BOOL", [4, 3], flags)])
    subprocess.run([spmd_run, program, f"--inputs={inputs}", "--check"],
                   check=True, capture_output=True)
    # Outputs that cannot be written are refused before the program runs
    # (no check is printed).
    folder = os.path.join(work, "a-folder.safetensors")
    os.makedirs(folder, exist_ok=True)
    for target, expected in [(folder, "is a folder, not a file"),
                             (os.path.join(bad, "x.safetensors"),
                              "is not a folder")]:
        run = subprocess.run([spmd_run, program, f"--inputs={inputs}",
                              f"--outputs={target}", "--check"],
                             capture_output=True, text=True)
        assert run.returncode == 2 and expected in run.stderr and \
            "check" not in run.stdout, (target, run.returncode, run.stdout,
                                        run.stderr)
    print("spmd-run: unheld types read past; bad outputs refused first")


def main():
    api_tests, spmd_run, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    interop_with_the_api(api_tests, work)
    inputs_by_name(spmd_run, work)
    print("safetensors interop: PASS")


if __name__ == "__main__":
    main()
