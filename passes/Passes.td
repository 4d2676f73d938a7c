//===- Passes.td - Passes of the spmd compiler -------------*- tablegen -*-===//

#ifndef SPMD_PASSES_PASSES_TD
#define SPMD_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def SpmdMeshConfig : Pass<"spmd-mesh-config", "mlir::ModuleOp"> {
  let summary = "Adds or replaces the mesh @mesh from a HybridMesh file";
  let description = [{
    Reads a HybridMesh configuration file (YAML, or the same keys in JSON)
    and makes `spmd.mesh @mesh` describe it, inserting the op when the module
    has none. Written `--spmd-mesh-config=FILE` on the command line, or
    `spmd-mesh-config{file=FILE}` in a pipeline. Errors in the file are
    reported at the file, line and column they are about.
  }];
  let options = [
    Option<"file", "file", "std::string", "",
           "HybridMesh configuration file (YAML or JSON)">
  ];
  let dependentDialects = ["mlir::spmd::SpmdDialect"];
}

#endif // SPMD_PASSES_PASSES_TD
