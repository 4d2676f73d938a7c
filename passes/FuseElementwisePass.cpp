//===- FuseElementwisePass.cpp - spmd-fuse-elementwise --------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDFUSEELEMENTWISE
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;

static bool isElementwise(Operation *op) {
  auto generic = llvm::dyn_cast_if_present<linalg::GenericOp>(op);
  return generic && generic.getNumLoops() == generic.getNumParallelLoops();
}

namespace {
struct FuseElementwisePass
    : mlir::spmd::impl::SpmdFuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Only a producer whose every use is the consumer: a value also read
    // elsewhere would be computed twice.
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *operand) {
          Operation *producer = operand->get().getDefiningOp();
          return isElementwise(producer) && isElementwise(operand->getOwner()) &&
                 producer->hasOneUse();
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
