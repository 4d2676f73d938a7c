#!/usr/bin/env python3
"""Checks the bytes each process sent through MPI (spmd-run's report,
counted by the MPI layer) against the analytic DCN share of every
collective of a partitioned program on a HybridMesh.

  dcn_bytes.py PROGRAM.mlir CONFIG.yaml REPORT.json

For a collective over axes A: k processes take part in each group (the
product of A's DCN sizes), L of its members live in each process (the
product of A's ICI sizes), n = k * L, and each process holds G = (its
devices) / L groups. S is one member's buffer in bytes. Per process:
  all_reduce          G * 2 (k-1)/k * S   (reduce-scatter + all-gather of
                                           the process's local sum)
  all_gather          G * L * S * (k-1)   (its buffers, once per process)
  broadcast, reduce   G * L * S * (k-1)   (as all_gather)
  reduce_scatter      G * (n - L) * S/n   (pieces of other processes'
                                           members, summed locally)
  all_to_all          G * L * (n - L) * S/n
  collective_permute  G * S * (pairs from here to another process)
A flat scheme (every device for itself) would send L times the
all_reduce and reduce_scatter figures; the report must show the
hierarchical ones exactly."""
import json
import re
import sys

BYTES = {"i32": 4, "f32": 4, "i64": 8, "f64": 8, "f16": 2, "bf16": 2}


def prod(values):
    out = 1
    for v in values:
        out *= v
    return out


def load_config(path):
    config = {}
    for line in open(path):
        line = line.split("#")[0]
        m = re.match(r"\s*(\w+)\s*:\s*\[(.*)\]", line)
        if m:
            items = [s.strip() for s in m.group(2).split(",")]
            config[m.group(1)] = items
    names = config["axis_names"]
    ici = [int(s) for s in config["ici_mesh_shape"]]
    dcn = [int(s) for s in config.get("dcn_mesh_shape", ["1"] * len(names))]
    return names, ici, dcn


def tensor_bytes(text):
    dims = text.split("x")
    return prod(int(d) for d in dims[:-1]) * BYTES[dims[-1]]


def delinearize(index, shape):
    coords = []
    for size in reversed(shape):
        coords.append(index % size)
        index //= size
    return list(reversed(coords))


def expected(line, names, ici, dcn, rank):
    m = re.search(r"(spmd\.\w+) %\w+ on @\w+ axes = \[([^\]]*)\]", line)
    kind = m.group(1)[len("spmd."):]
    axes = [names.index(a.strip().strip('"')) for a in m.group(2).split(",")
            if a.strip()]
    types = re.findall(r"tensor<([^>]*)>", line)
    size = tensor_bytes(types[0])
    k = prod(dcn[a] for a in axes)
    members_here = prod(ici[a] for a in axes)
    n = k * members_here
    groups = prod(ici) // members_here
    if k == 1 or kind == "all_slice":
        return kind, 0
    if kind == "all_reduce":
        return kind, groups * 2 * (k - 1) * size // k
    if kind in ("all_gather", "broadcast", "reduce"):
        return kind, groups * members_here * size * (k - 1)
    if kind == "reduce_scatter":
        return kind, groups * (n - members_here) * tensor_bytes(types[1])
    if kind == "all_to_all":
        return kind, groups * members_here * (n - members_here) * size // n
    if kind == "collective_permute":
        pairs = [tuple(int(x) for x in p.split("->"))
                 for p in re.search(r"pairs = \[([^\]]*)\]", line)
                 .group(1).split(",") if p.strip()]
        here = delinearize(rank, dcn)

        def process(position):  # DCN coordinates along the group's axes
            coords = delinearize(position, [dcn[a] * ici[a] for a in axes])
            return [c // ici[a] for c, a in zip(coords, axes)]

        mine = [here[a] for a in axes]
        crossing = sum(1 for s, t in pairs
                       if process(s) == mine and process(t) != mine)
        return kind, groups * size * crossing
    raise SystemExit("unknown collective " + kind)


def main():
    program, config, report = sys.argv[1:4]
    names, ici, dcn = load_config(config)
    counted = {}
    for entry in json.load(open(report)).get("mpi", []):
        line = int(re.search(r":(\d+):\d+$", entry["collective"]).group(1))
        counted[line] = entry["bytes_per_process"]
    ok = True
    checked = 0
    for number, line in enumerate(open(program), 1):
        if not re.search(r"= spmd\.(all_|reduce|collective_|broadcast)", line):
            continue
        for rank in range(prod(dcn)):
            kind, want = expected(line, names, ici, dcn, rank)
            got = counted.get(number, [0] * prod(dcn))[rank]
            status = "ok" if got == want else "MISMATCH"
            ok &= got == want
            checked += 1
            print("line %d %s rank %d: %d bytes through MPI, analytic %d %s"
                  % (number, kind, rank, got, want, status))
    if checked == 0:
        raise SystemExit("no collective found in " + program)
    print("dcn bytes: %s" % ("PASS" if ok else "FAIL"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
