//===- OptimizeCollectivesPass.cpp - spmd-optimize-collectives ------------===//

#include "passes/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDOPTIMIZECOLLECTIVES
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;
using namespace mlir::spmd;

/// The number of devices in each group of `op`, or 0 if unknown.
static int64_t groupSize(CollectiveOpInterface op,
                         SymbolTableCollection &tables) {
  auto mesh = tables.lookupNearestSymbolFrom<MeshOp>(op, op.getMeshAttr());
  if (!mesh)
    return 0;
  ::spmd::Mesh value = mesh.getMesh().toMesh();
  int64_t size = 1;
  for (auto axis : op.getAxesAttr().getAsRange<StringAttr>())
    size *= value.axisSize(*value.axisIndex(axis.getValue()));
  return size;
}

/// Whether `a` and `b` run over the same groups.
static bool sameGroups(CollectiveOpInterface a, CollectiveOpInterface b) {
  return a.getMeshAttr() == b.getMeshAttr() &&
         a.getAxesAttr() == b.getAxesAttr();
}

/// The value `op` passes through unchanged, if it does.
static Value passThrough(Operation *op, SymbolTableCollection &tables) {
  auto collective = llvm::dyn_cast<CollectiveOpInterface>(op);
  if (!collective)
    return {};
  Value input = op->getOperand(0);
  if (groupSize(collective, tables) == 1 &&
      input.getType() == op->getResult(0).getType())
    return input;
  // all_slice(all_gather(x)) == x, and all_gather(all_slice(x)) == x (the
  // slice's input is replicated over the axes).
  if (auto slice = llvm::dyn_cast<AllSliceOp>(op))
    if (auto gather = input.getDefiningOp<AllGatherOp>())
      if (sameGroups(slice, gather) &&
          slice.getSliceDim() == gather.getGatherDim() &&
          gather.getInput().getType() == slice.getType())
        return gather.getInput();
  if (auto gather = llvm::dyn_cast<AllGatherOp>(op))
    if (auto slice = input.getDefiningOp<AllSliceOp>())
      if (sameGroups(slice, gather) &&
          slice.getSliceDim() == gather.getGatherDim() &&
          slice.getInput().getType() == gather.getType())
        return slice.getInput();
  return {};
}

namespace {
struct OptimizeCollectivesPass
    : mlir::spmd::impl::SpmdOptimizeCollectivesBase<OptimizeCollectivesPass> {
  void runOnOperation() override {
    SymbolTableCollection tables;
    SmallVector<Operation *> collectives;
    getOperation().walk(
        [&](CollectiveOpInterface op) { collectives.push_back(op); });
    for (Operation *op : collectives)
      if (Value input = passThrough(op, tables))
        op->getResult(0).replaceAllUsesWith(input);
    for (Operation *op : llvm::reverse(collectives))
      if (op->use_empty())
        op->erase();
    IRRewriter rewriter(&getContext());
    DominanceInfo dominance(getOperation());
    eliminateCommonSubExpressions(rewriter, dominance, getOperation());
  }
};
} // namespace
