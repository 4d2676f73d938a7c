//===- ShardingRules.h - Which factor rule each op has ----------*- C++ -*-===//
//
// A registry from ops to their factor rules (sharding/ShardingRule.h). The
// rule of an op lists one tensor per operand, then one per result; operands
// that are not tensors (scalars, indices) are rank-0 tensors without
// factors. Rules come from per-op-name entries first, then from fallbacks
// that recognise op families (structured ops by their indexing maps,
// elementwise ops by their traits). Each family lives in ir/rules/.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_SHARDINGRULES_H
#define SPMD_IR_SHARDINGRULES_H

#include "sharding/ShardingRule.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"

#include <functional>

namespace mlir::spmd {

using RuleFn = std::function<std::optional<::spmd::ShardingRule>(Operation *)>;

class ShardingRuleRegistry {
public:
  /// The registry with every rule family of the compiler.
  static const ShardingRuleRegistry &get();

  /// A rule for the op named `opName` (e.g. "tensor.pad").
  void add(StringRef opName, RuleFn fn) { byName[opName] = std::move(fn); }
  /// A rule tried, in registration order, for ops without a named rule.
  void addFallback(RuleFn fn) { fallbacks.push_back(std::move(fn)); }

  /// The op's rule, or nullopt when no family knows it (or its shapes are
  /// dynamic).
  std::optional<::spmd::ShardingRule> ruleFor(Operation *op) const;

private:
  llvm::StringMap<RuleFn> byName;
  std::vector<RuleFn> fallbacks;
};

// One function per family, each in its own file under ir/rules/.
void registerStructuredRules(ShardingRuleRegistry &registry);
void registerElementwiseRules(ShardingRuleRegistry &registry);
void registerReshapeRules(ShardingRuleRegistry &registry);
void registerSliceRules(ShardingRuleRegistry &registry);
void registerTensorRules(ShardingRuleRegistry &registry);
void registerTosaRules(ShardingRuleRegistry &registry);

/// Helpers shared by the families.
namespace rules {
/// The static shape of `value`, or nullopt if it is not a statically shaped
/// ranked tensor.
std::optional<SmallVector<int64_t>> staticShape(Value value);
/// True when every operand and result is a static tensor or not shaped.
bool allStatic(Operation *op);
/// Adds one rank-0 tensor per non-tensor operand in [begin, end).
void addScalars(::spmd::ShardingRule &rule, unsigned count);
} // namespace rules

} // namespace mlir::spmd

#endif // SPMD_IR_SHARDINGRULES_H
