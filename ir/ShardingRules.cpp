//===- ShardingRules.cpp - Which factor rule each op has ------------------===//

#include "ir/ShardingRules.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::spmd;

const ShardingRuleRegistry &ShardingRuleRegistry::get() {
  static const ShardingRuleRegistry registry = [] {
    ShardingRuleRegistry r;
    registerTensorRules(r);
    registerReshapeRules(r);
    registerSliceRules(r);
    registerTosaRules(r);
    registerStructuredRules(r);
    registerElementwiseRules(r);
    return r;
  }();
  return registry;
}

std::optional<::spmd::ShardingRule>
ShardingRuleRegistry::ruleFor(Operation *op) const {
  if (!rules::allStatic(op))
    return std::nullopt;
  auto it = byName.find(op->getName().getStringRef());
  if (it != byName.end())
    return it->second(op);
  for (const RuleFn &fallback : fallbacks)
    if (std::optional<::spmd::ShardingRule> rule = fallback(op))
      return rule;
  return std::nullopt;
}

std::optional<SmallVector<int64_t>> rules::staticShape(Value value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return SmallVector<int64_t>(type.getShape());
}

bool rules::allStatic(Operation *op) {
  auto ok = [](Type type) {
    auto shaped = llvm::dyn_cast<ShapedType>(type);
    return !shaped ||
           (llvm::isa<RankedTensorType>(shaped) && shaped.hasStaticShape());
  };
  return llvm::all_of(op->getOperandTypes(), ok) &&
         llvm::all_of(op->getResultTypes(), ok);
}

void rules::addScalars(::spmd::ShardingRule &rule, unsigned count) {
  for (unsigned i = 0; i < count; ++i)
    rule.addTensor({});
}
