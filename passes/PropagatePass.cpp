//===- PropagatePass.cpp - spmd-propagate ---------------------------------===//

#include "ir/ShardingModels.h"
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

  /// Rules come from the ops' sharding models, whatever context runs this.
  void getDependentDialects(DialectRegistry &registry) const override {
    SpmdPropagateBase::getDependentDialects(registry);
    registerShardingModels(registry);
  }

  void runOnOperation() override {
    if (failed(propagateShardings(getOperation(), {strategy, debugOrigins})))
      signalPassFailure();
  }
};
} // namespace
