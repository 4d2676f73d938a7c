//===- TestPrintRulesPass.cpp - spmd-test-print-rules ---------------------===//

#include "ir/ShardingRules.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDTESTPRINTRULES
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;

namespace {
struct TestPrintRules
    : mlir::spmd::impl::SpmdTestPrintRulesBase<TestPrintRules> {
  void runOnOperation() override {
    const auto &rules = mlir::spmd::ShardingRuleRegistry::get();
    Builder builder(&getContext());
    getOperation().walk([&](Operation *op) {
      if (std::optional<::spmd::ShardingRule> rule = rules.ruleFor(op))
        op->setAttr("spmd.sharding_rule",
                    builder.getStringAttr(rule->str(op->getNumOperands())));
    });
  }
};
} // namespace
