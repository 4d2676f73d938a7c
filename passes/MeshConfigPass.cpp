//===- MeshConfigPass.cpp - Mesh @mesh from a HybridMesh file -------------===//

#include "ir/Namespaces.h"
#include "mesh/MeshConfig.h"
#include "passes/PassOptionChecks.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDMESHCONFIG
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;
using namespace mlir::spmd;

namespace {
struct MeshConfigPass : mlir::spmd::impl::SpmdMeshConfigBase<MeshConfigPass> {
  using SpmdMeshConfigBase::SpmdMeshConfigBase;

  /// Also accepts a bare path, so `--spmd-mesh-config=FILE` reads FILE.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    StringRef trimmed = options.trim();
    if (!trimmed.empty() && !trimmed.contains('=')) {
      file = trimmed.str();
      return success();
    }
    CheckedOption checks[] = {{"file", anyValue()}};
    return parseCheckedOptions(
        "spmd-mesh-config", options, checks, errorHandler, [&](auto handler) {
          return Pass::initializeOptions(options, handler);
        });
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (file.empty()) {
      mlir::emitError(module.getLoc(), "spmd-mesh-config needs a file: "
                                       "--spmd-mesh-config=FILE");
      return signalPassFailure();
    }
    llvm::Expected<HybridDeviceMesh> hybrid = loadMeshConfigFile(file);
    if (!hybrid) {
      llvm::handleAllErrors(
          hybrid.takeError(),
          [&](const ConfigError &err) {
            // Errors inside the file point into it; others (an unreadable
            // file) are about the module being processed.
            if (err.line)
              mlir::emitError(
                  FileLineColLoc::get(context, err.file, err.line, err.column))
                  << err.message;
            else
              mlir::emitError(module.getLoc())
                  << "mesh config '" << err.file << "': " << err.message;
          },
          [&](const llvm::ErrorInfoBase &err) {
            mlir::emitError(module.getLoc())
                << "mesh config '" << file << "': " << err.message();
          });
      return signalPassFailure();
    }

    MeshAttr mesh = MeshAttr::get(context, hybrid->mesh());
    // Hosts per axis, for the cost models that tell DCN from ICI axes.
    auto dcnShape = DenseI64ArrayAttr::get(context, hybrid->dcnShape());
    Operation *existing = SymbolTable::lookupSymbolIn(module, "mesh");
    if (auto meshOp = llvm::dyn_cast_or_null<MeshOp>(existing)) {
      meshOp.setMeshAttr(mesh);
      meshOp.setDcnShapeAttr(dcnShape);
      return;
    }
    if (existing) {
      existing->emitError("symbol @mesh is not a spmd.mesh; cannot apply ")
          << "the mesh configuration from " << file;
      return signalPassFailure();
    }
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    MeshOp::create(builder, FileLineColLoc::get(context, file, 1, 1), "mesh",
                   mesh, dcnShape);
  }
};
} // namespace
