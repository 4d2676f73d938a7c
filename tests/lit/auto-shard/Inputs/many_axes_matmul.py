#!/usr/bin/env python3
"""Prints a 64x64 matmul on a mesh of N axes of size 2 (argv[1])."""
import sys

axes = int(sys.argv[1])
mesh = ", ".join('"a%d"=2' % i for i in range(axes))
t = "tensor<64x64xf32>"
print(f"""spmd.mesh @mesh = <[{mesh}]>
func.func @mm(%a: {t}, %b: {t}) -> {t} {{
  %e = tensor.empty() : {t}
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : {t}) -> {t}
  %m = linalg.matmul ins(%a, %b : {t}, {t}) outs(%f : {t}) -> {t}
  return %m : {t}
}}""")
