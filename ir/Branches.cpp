//===- Branches.cpp - Ops that run one of their regions -------------------===//

#include "ir/Branches.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;

bool mlir::spmd::isYieldingBranch(Operation *op) {
  if (!llvm::isa<RegionBranchOpInterface>(op) || op->getNumRegions() == 0 ||
      llvm::isa<LoopLikeOpInterface>(op))
    return false;
  return llvm::all_of(op->getRegions(), [&](Region &region) {
    if (region.empty())
      return true;
    if (!region.hasOneBlock() || region.front().getNumArguments() != 0)
      return false;
    auto yield = llvm::dyn_cast<scf::YieldOp>(region.front().getTerminator());
    return yield && yield.getNumOperands() == op->getNumResults();
  });
}

ValueRange mlir::spmd::branchYield(Operation *op, unsigned i) {
  Region &region = op->getRegion(i);
  if (region.empty())
    return {};
  return region.front().getTerminator()->getOperands();
}
