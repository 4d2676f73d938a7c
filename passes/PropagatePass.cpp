//===- PropagatePass.cpp - spmd-propagate ---------------------------------===//

#include "passes/Passes.h"
#include "passes/ShardingPropagation.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDPROPAGATE
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;
using namespace mlir::spmd;

namespace {
struct PropagatePass : mlir::spmd::impl::SpmdPropagateBase<PropagatePass> {
  using SpmdPropagateBase::SpmdPropagateBase;

  void runOnOperation() override {
    if (failed(propagateShardings(getOperation(), {strategy, debugOrigins})))
      signalPassFailure();
  }
};
} // namespace
