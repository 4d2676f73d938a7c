#!/usr/bin/env python3
"""Every reshard between two shardings of a 6x10 tensor over a 2x2 mesh.

Usage: reshard_pairs.py SPMD_RUN

Uneven on purpose (6 and 10 over 2 and 4 devices). For every ordered pair
(A, B) of the shardings of a rank-2 tensor over axes "a" and "b" (each axis
unused or on a dimension, in every order), on the iota mesh and on a mesh
with permuted device ids, runs a function taking the tensor in A and
returning it in B with `spmd-run --check`: every device must end with
exactly its elements. Prints a summary; exits 1 on any failure.
"""
import itertools
import os
import subprocess
import sys
import tempfile


def shardings():
    result = []
    axes = ["a", "b"]
    # Each axis: unused, on dim 0 or on dim 1; order within a dimension.
    for placement in itertools.product([None, 0, 1], repeat=2):
        dims = [[], []]
        for axis, dim in zip(axes, placement):
            if dim is not None:
                dims[dim].append(axis)
        result.append(dims)
        for d in range(2):
            if len(dims[d]) == 2:
                swapped = [list(x) for x in dims]
                swapped[d].reverse()
                result.append(swapped)
    return result


def text(dims):
    return "#spmd.sharding<@mesh, [%s]>" % ", ".join(
        "{%s}" % ", ".join('"%s"' % a for a in d) for d in dims)


def main():
    spmd_run = sys.argv[1]
    meshes = ['<["a"=2, "b"=2]>', '<["a"=2, "b"=2], device_ids=[2, 0, 3, 1]>']
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for m, mesh in enumerate(meshes):
            for i, source in enumerate(shardings()):
                for j, target in enumerate(shardings()):
                    path = os.path.join(tmp, "pair_%d_%d_%d.mlir" % (m, i, j))
                    with open(path, "w") as f:
                        f.write("spmd.mesh @mesh = %s\n"
                                "func.func @main(%%x: tensor<6x10xf32> {spmd.sharding = %s})\n"
                                "    -> (tensor<6x10xf32> {spmd.sharding = %s}) {\n"
                                "  return %%x : tensor<6x10xf32>\n}\n"
                                % (mesh, text(source), text(target)))
                    run = subprocess.run([spmd_run, path, "--check"],
                                         capture_output=True, text=True)
                    if run.returncode == 0 and "check: PASS" in run.stdout:
                        passed += 1
                    else:
                        failed += 1
                        print("FAIL %s -> %s on %s: %s%s" % (text(source), text(target), mesh,
                                                            run.stdout.strip(), run.stderr.strip()))
    print("reshard pairs: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
