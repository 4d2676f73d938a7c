//===- ImportPass.cpp - spmd-import ---------------------------------------===//

#include "ir/Namespaces.h"
#include "passes/Import.h"
#include "passes/Passes.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDIMPORT
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;

namespace {
struct ImportPass : mlir::spmd::impl::SpmdImportBase<ImportPass> {
  void runOnOperation() override {
    if (failed(mlir::spmd::importShardDialect(getOperation())) ||
        failed(mlir::spmd::importGspmdShardings(getOperation())) ||
        failed(mlir::spmd::importConstantIndices(getOperation())))
      signalPassFailure();
  }
};
} // namespace
