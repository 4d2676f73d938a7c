//===- ImportPass.cpp - spmd-import ---------------------------------------===//

#include "ir/Namespaces.h"
#include "ir/SpmdOps.h"
#include "passes/Import.h"
#include "passes/Passes.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDIMPORT
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;

/// A program written for one big device computes on global values: a
/// collective or `axis_index`, which work on one device's local values,
/// belongs in a manual region (or a module already partitioned). Outside
/// one it had no global meaning, and a check's one-device reference waited
/// for devices that never came.
static LogicalResult checkLocalOpsAreManual(ModuleOp module) {
  if (module->hasAttr(mlir::spmd::SpmdDialect::kPartitionedAttrName))
    return success();
  WalkResult result = module.walk([](Operation *op) {
    if (!llvm::isa<mlir::spmd::CollectiveOpInterface, mlir::spmd::AxisIndexOp>(
            op) ||
        op->getParentOfType<mlir::spmd::ManualComputationOp>())
      return WalkResult::advance();
    op->emitError() << "'" << op->getName()
                    << "' works on one device's values: in a program not "
                       "yet partitioned it goes inside an "
                       "'spmd.manual_computation' (or the module is marked "
                       "'spmd.partitioned')";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

namespace {
struct ImportPass : mlir::spmd::impl::SpmdImportBase<ImportPass> {
  void runOnOperation() override {
    if (failed(mlir::spmd::importShardDialect(getOperation())) ||
        failed(mlir::spmd::importGspmdShardings(getOperation())) ||
        failed(mlir::spmd::importConstantIndices(getOperation())) ||
        failed(checkLocalOpsAreManual(getOperation())))
      return signalPassFailure();
    mlir::spmd::warnOnDifferingReplicatedResults(getOperation());
  }
};
} // namespace
