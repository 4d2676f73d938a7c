// Tests that spmd-pipeline's mesh-config option applies the HybridMesh file
// first, as spmd-run --mesh-config does: the file's mesh replaces @mesh
// before the program is partitioned over it.
// RUN: spmd-opt %s --spmd-pipeline=mesh-config=%S/../Inputs/hybrid.yaml | FileCheck %s

// CHECK: spmd.mesh @mesh = <["data"=2, "fsdp"=4, "tensor"=1]
// CHECK: func.func @f(%{{.*}}: tensor<2xf32>
spmd.mesh @mesh = <["data"=8, "fsdp"=1, "tensor"=1]>
func.func @f(%x: tensor<16xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data", "fsdp"}]>}) -> tensor<16xf32> {
  return %x : tensor<16xf32>
}
