// Tests that spmd-mesh-config replaces @mesh with the mesh of a YAML or JSON
// configuration file and keeps the other meshes.
// RUN: spmd-opt %s --spmd-mesh-config=%S/../Inputs/hybrid.yaml | FileCheck %s --check-prefix=HYBRID
// RUN: spmd-opt %s --pass-pipeline='builtin.module(spmd-mesh-config{file=%S/../Inputs/hybrid.yaml})' | FileCheck %s --check-prefix=HYBRID
// RUN: spmd-opt %s --spmd-mesh-config=%S/../Inputs/interleaved.json | FileCheck %s --check-prefix=JSON
// RUN: spmd-opt %s --spmd-mesh-config=%S/../Inputs/single-host.yaml | FileCheck %s --check-prefix=SINGLE

// The file replaces the existing @mesh; the other meshes stay.
// HYBRID: spmd.mesh @mesh = <["data"=2, "fsdp"=4, "tensor"=1]>
// HYBRID-NOT: spmd.mesh @mesh
// HYBRID: spmd.mesh @other = <["x"=2]>

// DCN-major order: data = dcn 2 x ici 2, so process 0 owns data rows 0-1
// (devices 0-3) and process 1 rows 2-3 (devices 4-7).
// JSON: spmd.mesh @mesh = <["data"=4, "model"=2]>
// JSON-NOT: device_ids

// SINGLE: spmd.mesh @mesh = <["data"=2, "model"=2]>

spmd.mesh @mesh = <["data"=8]>
spmd.mesh @other = <["x"=2]>
func.func @f(%x: tensor<8xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}]>}) {
  return
}
