//===- PropagatePass.cpp - spmd-propagate ---------------------------------===//

#include "ir/Namespaces.h"
#include "ir/ShardingModels.h"
#include "passes/PassOptionChecks.h"
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

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    CheckedOption checks[] = {{"strategy", oneOf({"basic", "aggressive"})},
                              {"debug-origins", boolean(), true}};
    return parseCheckedOptions(
        "spmd-propagate", options, checks, errorHandler, [&](auto handler) {
          return Pass::initializeOptions(options, handler);
        });
  }

  void runOnOperation() override {
    if (failed(propagateShardings(getOperation(), {strategy, debugOrigins})))
      signalPassFailure();
  }
};
} // namespace
