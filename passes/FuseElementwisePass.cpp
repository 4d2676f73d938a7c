//===- FuseElementwisePass.cpp - spmd-fuse-elementwise --------------------===//

#include "passes/Passes.h"

#include "ir/Namespaces.h"
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

/// A generic that only copies its one input, maybe transposing it (how
/// torch-mlir writes `w.t()`).
static bool isPermutedCopy(Operation *op) {
  auto generic = llvm::dyn_cast_if_present<linalg::GenericOp>(op);
  if (!generic || !isElementwise(op) || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || !op->hasOneUse())
    return false;
  auto yield = llvm::cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  return yield.getNumOperands() == 1 &&
         yield.getOperand(0) == generic.getBody()->getArgument(0) &&
         llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isPermutation(); });
}

/// Named contractions (matmul, batch_matmul, ...) reading a permuted copy
/// become generics, so the copy can be fused into them: the GEMM then reads
/// the operand where it lies, transposed, as `x @ w.t()` does.
static void generalizeContractionsOfCopies(ModuleOp module) {
  SmallVector<linalg::LinalgOp> named;
  module.walk([&](linalg::LinalgOp op) {
    if (!llvm::isa<linalg::GenericOp>(op) &&
        linalg::isaContractionOpInterface(op) &&
        llvm::any_of(op.getDpsInputs(), [](Value input) {
          return isPermutedCopy(input.getDefiningOp());
        }))
      named.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    (void)linalg::generalizeNamedOp(rewriter, op);
  }
}

namespace {
struct FuseElementwisePass
    : mlir::spmd::impl::SpmdFuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Shardings of op results describe the ops before fusion, which may
    // drop results; the programs fused here run as they are.
    module.walk([](Operation *op) {
      if (isa_and_nonnull<mlir::spmd::ShardingPerValueAttr>(
              op->getAttr(mlir::spmd::SpmdDialect::kShardingAttrName)))
        op->removeAttr(mlir::spmd::SpmdDialect::kShardingAttrName);
    });
    // First, a transposed constant (weights, as torch-mlir writes them)
    // becomes a constant once, here, instead of a copy on every call.
    RewritePatternSet folds(&getContext());
    linalg::populateConstantFoldLinalgOperations(folds, [](OpOperand *operand) {
      return isPermutedCopy(operand->getOwner());
    });
    if (failed(applyPatternsGreedily(module, std::move(folds))))
      return signalPassFailure();

    generalizeContractionsOfCopies(module);
    RewritePatternSet patterns(&getContext());
    // Only a producer whose every use is the consumer: a value also read
    // elsewhere would be computed twice. Into a generic that reduces, only
    // a permuted copy: the executor's reduction and GEMM kernels recognise
    // such generics by their bodies, which a fused computation would hide.
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *operand) {
          Operation *producer = operand->get().getDefiningOp();
          return isElementwise(producer) && producer->hasOneUse() &&
                 (isElementwise(operand->getOwner()) ||
                  isPermutedCopy(producer));
        });
    // Not upstream's RemoveOutsDependency: it gives a generic whose body
    // does not read an init a fresh one, although the op keeps the init's
    // elements it does not write (an output map that is not onto, a loop
    // of no steps): those then held whatever memory held. The kernels
    // already skip the copy of an init that every step overwrites.
    std::vector<std::string> disabled;
    for (const auto &pattern : patterns.getNativePatterns())
      if (pattern->getDebugName().ends_with("::RemoveOutsDependency"))
        disabled.push_back(pattern->getDebugName().str());
    assert(disabled.size() == 1 && "upstream's fusion patterns changed");
    FrozenRewritePatternSet frozen(std::move(patterns), disabled);
    if (failed(applyPatternsGreedily(module, frozen)))
      signalPassFailure();
  }
};
} // namespace
