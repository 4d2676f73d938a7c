"""Prints a chain of LAYERS matmul + tanh layers of 64x64 f32 on a mesh of
four axes of 2, with four weights used in turn: a program whose
auto-sharding problem CBC's root linear program takes minutes on.

Usage: tanh-chain.py LAYERS
"""
import sys

layers = int(sys.argv[1])
t = "tensor<64x64xf32>"
print('spmd.mesh @mesh = <["a"=2, "b"=2, "c"=2, "d"=2]>')
weights = ", ".join(f"%w{i}: {t}" for i in range(4))
print(f"func.func @chain(%x: {t}, {weights}) -> {t} {{")
print("  %zero = arith.constant 0.0 : f32")
previous = "%x"
for i in range(layers):
    print(f"  %e{i} = tensor.empty() : {t}")
    print(f"  %f{i} = linalg.fill ins(%zero : f32) outs(%e{i} : {t}) -> {t}")
    print(f"  %m{i} = linalg.matmul ins({previous}, %w{i % 4} : {t}, {t}) "
          f"outs(%f{i} : {t}) -> {t}")
    print(f"  %t{i} = math.tanh %m{i} : {t}")
    previous = f"%t{i}"
print(f"  return {previous} : {t}")
print("}")
