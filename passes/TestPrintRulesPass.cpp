//===- TestPrintRulesPass.cpp - spmd-test-print-rules ---------------------===//
//
// Writes what each op's ShardingOpInterface (or its traits) says as a
// string attribute: the factor rule, then, where the rule has reduction
// factors, the reduction each result is pending when they are split
// (`pending=[sum]`, `none` where they must stay whole), then the windows
// its inputs are read through.
//
//===----------------------------------------------------------------------===//

#include "ir/Namespaces.h"
#include "ir/ShardingModels.h"
#include "ir/SpmdDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDTESTPRINTRULES
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;
using namespace mlir::spmd;

static std::string describeRule(Operation *op, const OpShardingRule &rule) {
  std::string text = rule.str(op->getNumOperands());
  llvm::raw_string_ostream os(text);
  if (llvm::is_contained(rule.factorKinds, FactorKind::Reduction)) {
    os << " pending=[";
    llvm::interleaveComma(op->getResults(), os, [&](OpResult result) {
      std::optional<ReductionKind> kind =
          getReductionKind(op, result.getResultNumber());
      os << (kind ? stringifyReduction(*kind) : "none");
    });
    os << "]";
  }
  if (!rule.windows.empty()) {
    os << " windows={";
    llvm::interleaveComma(rule.windows, os, [&](const WindowedDim &w) {
      os << "operand" << w.operand << "[" << w.dim << "]: " << w.stride << "*"
         << ShardingRule::factorName(w.factor) << " + [0, " << w.extent << "] "
         << (w.offset < 0 ? "- " : "+ ") << std::abs(w.offset);
      if (w.fill)
        os << " else " << w.fill;
    });
    os << "}";
  }
  return text;
}

namespace {
struct TestPrintRules
    : mlir::spmd::impl::SpmdTestPrintRulesBase<TestPrintRules> {
  void getDependentDialects(DialectRegistry &registry) const override {
    registerShardingModels(registry);
  }

  void runOnOperation() override {
    Builder builder(&getContext());
    getOperation().walk([&](Operation *op) {
      if (std::optional<OpShardingRule> rule = getShardingRule(op))
        op->setAttr(SpmdDialect::kShardingRuleAttrName,
                    builder.getStringAttr(describeRule(op, *rule)));
    });
  }
};
} // namespace
