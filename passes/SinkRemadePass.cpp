//===- SinkRemadePass.cpp - spmd-sink-remade ------------------------------===//

#include "passes/Passes.h"

#include "ir/Namespaces.h"
#include "ir/RemadePerDevice.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDSINKREMADE
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;

/// The first op of `block` that reads `value` (itself or in its regions);
/// null when a reader lies outside the block.
static Operation *firstReaderIn(Block &block, Value value) {
  Operation *first = nullptr;
  for (Operation *user : value.getUsers()) {
    Operation *top = block.findAncestorOpInBlock(*user);
    if (!top)
      return nullptr;
    if (!first || top->isBeforeInBlock(first))
      first = top;
  }
  return first;
}

/// Bottom up, so that what makes a moved tensor (a fill's empty) is moved
/// after it, before it.
static void sinkRemade(Block &block) {
  mlir::spmd::RemadePerDeviceCache remade;
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block))) {
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        sinkRemade(inner);
    if (op.getNumResults() != 1 || !isMemoryEffectFree(&op) ||
        !remade.isRemade(op.getResult(0)))
      continue;
    if (Operation *reader = firstReaderIn(block, op.getResult(0)))
      op.moveBefore(reader);
  }
}

namespace {
struct SinkRemadePass : mlir::spmd::impl::SpmdSinkRemadeBase<SinkRemadePass> {
  void runOnOperation() override {
    for (Operation &op : getOperation().getBody()->getOperations())
      for (Region &region : op.getRegions())
        for (Block &block : region)
          sinkRemade(block);
  }
};
} // namespace
