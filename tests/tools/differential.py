#!/usr/bin/env python3
"""Differential tests: partitioned programs against the unpartitioned one.

Usage: differential.py SPMD_RUN [--seed S] [--cases N] [--keep DIR]

For every op family below and every mesh (1, 2, 3, 4, 8 devices and 2x4),
writes programs whose arguments (and sometimes results) carry random
shardings, uneven on purpose, and runs `spmd-run --check` on each: the
partitioned program on all devices must match the unpartitioned one on one
device. Prints one line per failure and a summary; exits 1 on any failure.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

MESHES = {
    "1": [("x", 1)],
    "2": [("x", 2)],
    "3": [("x", 3)],
    "4": [("x", 4)],
    "8": [("x", 8)],
    "2x4": [("x", 2), ("y", 4)],
}

# Each family: argument shapes, result shape, and the body (MLIR using %a0,
# %a1, ... and returning %r). Element type f32 unless noted.
FAMILIES = {
    "elementwise": ([[6, 10], [6, 10]], [6, 10], """
  %r = arith.addf %a0, %a1 : tensor<6x10xf32>"""),
    "generic_unary": ([[7, 5]], [7, 5], """
  %e = tensor.empty() : tensor<7x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a0 : tensor<7x5xf32>) outs(%e : tensor<7x5xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = math.tanh %x : f32
    linalg.yield %t : f32
  } -> tensor<7x5xf32>"""),
    "broadcast_bias": ([[6, 10], [1, 10]], [6, 10], """
  %e = tensor.empty() : tensor<6x10xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a0, %a1 : tensor<6x10xf32>, tensor<1x10xf32>) outs(%e : tensor<6x10xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<6x10xf32>"""),
    "matmul": ([[6, 10], [10, 7]], [6, 7], """
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x7xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6x7xf32>) -> tensor<6x7xf32>
  %r = linalg.matmul ins(%a0, %a1 : tensor<6x10xf32>, tensor<10x7xf32>) outs(%f : tensor<6x7xf32>) -> tensor<6x7xf32>"""),
    "matmul_accumulate": ([[6, 10], [10, 7], [6, 7]], [6, 7], """
  %r = linalg.matmul ins(%a0, %a1 : tensor<6x10xf32>, tensor<10x7xf32>) outs(%a2 : tensor<6x7xf32>) -> tensor<6x7xf32>"""),
    "batch_matmul": ([[3, 5, 6], [3, 6, 4]], [3, 5, 4], """
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x5x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x5x4xf32>) -> tensor<3x5x4xf32>
  %r = linalg.batch_matmul ins(%a0, %a1 : tensor<3x5x6xf32>, tensor<3x6x4xf32>) outs(%f : tensor<3x5x4xf32>) -> tensor<3x5x4xf32>"""),
    "contraction_generic": ([[6, 9], [6, 5]], [9, 5], """
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<9x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<9x5xf32>) -> tensor<9x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, h, g) -> (b, h)>, affine_map<(b, h, g) -> (b, g)>, affine_map<(b, h, g) -> (h, g)>],
                       iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%a0, %a1 : tensor<6x9xf32>, tensor<6x5xf32>) outs(%f : tensor<9x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<9x5xf32>"""),
    "reduce_sum": ([[10, 6]], [6], """
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %r = linalg.reduce ins(%a0 : tensor<10x6xf32>) outs(%f : tensor<6xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }"""),
    "reduce_max": ([[7, 6], [6]], [6], """
  %r = linalg.reduce ins(%a0 : tensor<7x6xf32>) outs(%a1 : tensor<6xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.maximumf %x, %acc : f32
      linalg.yield %s : f32
    }"""),
    "transpose": ([[6, 10]], [10, 6], """
  %e = tensor.empty() : tensor<10x6xf32>
  %r = linalg.transpose ins(%a0 : tensor<6x10xf32>) outs(%e : tensor<10x6xf32>) permutation = [1, 0]"""),
    "broadcast": ([[6]], [6, 5], """
  %e = tensor.empty() : tensor<6x5xf32>
  %r = linalg.broadcast ins(%a0 : tensor<6xf32>) outs(%e : tensor<6x5xf32>) dimensions = [1]"""),
    "collapse": ([[4, 6]], [24], """
  %r = tensor.collapse_shape %a0 [[0, 1]] : tensor<4x6xf32> into tensor<24xf32>"""),
    "expand": ([[24]], [4, 6], """
  %r = tensor.expand_shape %a0 [[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>"""),
    "extract_slice": ([[6, 10]], [6, 4], """
  %r = tensor.extract_slice %a0[0, 3] [6, 4] [1, 1] : tensor<6x10xf32> to tensor<6x4xf32>"""),
    "extract_slice_rows": ([[11, 6]], [8, 6], """
  %r = tensor.extract_slice %a0[2, 0] [8, 6] [1, 1] : tensor<11x6xf32> to tensor<8x6xf32>"""),
    "extract_slice_strided": ([[12, 10]], [5, 4], """
  %r = tensor.extract_slice %a0[1, 2] [5, 4] [2, 2] : tensor<12x10xf32> to tensor<5x4xf32>"""),
    "insert_slice": ([[6, 10], [6, 3]], [6, 10], """
  %r = tensor.insert_slice %a1 into %a0[0, 2] [6, 3] [1, 1] : tensor<6x3xf32> into tensor<6x10xf32>"""),
    "pad": ([[6, 5]], [6, 9], """
  %z = arith.constant 0.5 : f32
  %r = tensor.pad %a0 low[0, 1] high[0, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<6x5xf32> to tensor<6x9xf32>"""),
    "pad_both": ([[9, 7]], [12, 8], """
  %z = arith.constant -2.0 : f32
  %r = tensor.pad %a0 low[2, 0] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<9x7xf32> to tensor<12x8xf32>"""),
    "concat": ([[6, 4], [6, 3]], [6, 7], """
  %r = tensor.concat dim(1) %a0, %a1 : (tensor<6x4xf32>, tensor<6x3xf32>) -> tensor<6x7xf32>"""),
    "conv": ([[2, 9, 9, 3], [3, 3, 3, 4]], [2, 7, 7, 4], """
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x7x7x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x7x7x4xf32>) -> tensor<2x7x7x4xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%a0, %a1 : tensor<2x9x9x3xf32>, tensor<3x3x3x4xf32>) outs(%f : tensor<2x7x7x4xf32>) -> tensor<2x7x7x4xf32>"""),
    "pooling": ([[2, 3, 8, 8]], [2, 3, 4, 4], """
  %w = tensor.empty() : tensor<2x2xf32>
  %m = arith.constant -3.0e38 : f32
  %e = tensor.empty() : tensor<2x3x4x4xf32>
  %f = linalg.fill ins(%m : f32) outs(%e : tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%a0, %w : tensor<2x3x8x8xf32>, tensor<2x2xf32>) outs(%f : tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>"""),
    "scf_for": ([[6, 10]], [6, 10], """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %a0) -> (tensor<6x10xf32>) {
    %t = math.sin %acc : tensor<6x10xf32>
    %s = arith.addf %t, %a0 : tensor<6x10xf32>
    scf.yield %s : tensor<6x10xf32>
  }"""),
    "scf_if": ([[6, 10], [6, 10]], [6, 10], """
  %z = arith.constant 0 : index
  %c = arith.cmpi eq, %z, %z : index
  %r = scf.if %c -> tensor<6x10xf32> {
    %s = arith.mulf %a0, %a1 : tensor<6x10xf32>
    scf.yield %s : tensor<6x10xf32>
  } else {
    scf.yield %a0 : tensor<6x10xf32>
  }"""),
    "scf_while": ([[6, 10]], [6, 10], """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.while (%acc = %a0, %i = %c0) : (tensor<6x10xf32>, index) -> (tensor<6x10xf32>, index) {
    %more = arith.cmpi slt, %i, %c3 : index
    scf.condition(%more) %acc, %i : tensor<6x10xf32>, index
  } do {
  ^bb0(%x: tensor<6x10xf32>, %j: index):
    %t = math.cos %x : tensor<6x10xf32>
    %s = arith.addf %t, %a0 : tensor<6x10xf32>
    %n = arith.addi %j, %c1 : index
    scf.yield %s, %n : tensor<6x10xf32>, index
  }"""),
    "call": ([[6, 10]], [6, 10], """
  %r = func.call @helper(%a0) : (tensor<6x10xf32>) -> tensor<6x10xf32>""",
             """
func.func private @helper(%x: tensor<6x10xf32>) -> tensor<6x10xf32> {
  %e = math.exp %x : tensor<6x10xf32>
  return %e : tensor<6x10xf32>
}"""),
}


def tensor(shape):
    return "tensor<%sxf32>" % "x".join(str(s) for s in shape) if shape else "tensor<f32>"


def random_sharding(rng, rank, axes):
    """A random sharding: each axis unused or on a random dimension."""
    dims = [[] for _ in range(rank)]
    order = axes[:]
    rng.shuffle(order)
    for name, _ in order:
        if rank and rng.random() < 0.7:
            dims[rng.randrange(rank)].append(name)
    return "#spmd.sharding<@mesh, [%s]>" % ", ".join(
        "{%s}" % ", ".join('"%s"' % a for a in d) for d in dims)


def program(family, mesh, rng):
    args, result, body, *extra = FAMILIES[family]
    mesh_text = ", ".join('"%s"=%d' % a for a in MESHES[mesh])
    params = []
    for i, shape in enumerate(args):
        attr = ""
        if rng.random() < 0.85:
            attr = " {spmd.sharding = %s}" % random_sharding(rng, len(shape), MESHES[mesh])
        params.append("%%a%d: %s%s" % (i, tensor(shape), attr))
    result_attr = ""
    if rng.random() < 0.5:
        result_attr = " {spmd.sharding = %s}" % random_sharding(rng, len(result), MESHES[mesh])
    text = "spmd.mesh @mesh = <[%s]>\n" % mesh_text
    text += "".join(extra)
    ret = "%r#0" if family == "scf_while" else "%r"
    text += "\nfunc.func @main(%s) -> (%s%s) {%s\n  return %s : %s\n}\n" % (
        ", ".join(params), tensor(result), result_attr, body, ret, tensor(result))
    return text


def main():
    p = argparse.ArgumentParser()
    p.add_argument("spmd_run")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cases", type=int, default=2, help="programs per family and mesh")
    p.add_argument("--keep", default="")
    a = p.parse_args()
    rng = random.Random(a.seed)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = a.keep or tmp
        os.makedirs(out_dir, exist_ok=True)
        for family in FAMILIES:
            for mesh in MESHES:
                for case in range(a.cases):
                    text = program(family, mesh, rng)
                    path = os.path.join(out_dir, "%s_%s_%d.mlir" % (family, mesh, case))
                    with open(path, "w") as f:
                        f.write(text)
                    run = subprocess.run([a.spmd_run, path, "--check", "--seed", str(case)],
                                         capture_output=True, text=True)
                    if run.returncode == 0 and "check: PASS" in run.stdout:
                        passed += 1
                    else:
                        failed += 1
                        print("FAIL %s: %s%s" % (path, run.stdout.strip(), run.stderr.strip()[:2000]))
    print("differential: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
