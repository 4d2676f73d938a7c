//===- ReshapeRules.cpp - Rules of reshapes -------------------------------===//
//
// collapse_shape, expand_shape and reshape use compound factors: the finest
// common factorisation of the two shapes (ShardingRule::reshape), so
// [8, 16] -> [128] sharded on the major dimension keeps its sharding.
//
//===----------------------------------------------------------------------===//

#include "ir/ShardingRules.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::spmd;
using ::spmd::ShardingRule;

/// Source is operand 0, result is result 0; other operands (dynamic sizes,
/// the shape tensor of tensor.reshape) get their own free factors.
static std::optional<ShardingRule> reshapeRule(Operation *op) {
  std::optional<SmallVector<int64_t>> source =
      rules::staticShape(op->getOperand(0));
  std::optional<SmallVector<int64_t>> result =
      rules::staticShape(op->getResult(0));
  if (!source || !result)
    return std::nullopt;
  ShardingRule pair = ShardingRule::reshape(*source, *result);
  ShardingRule rule = pair;
  rule.tensors = {pair.tensors[0]};
  for (Value operand : op->getOperands().drop_front()) {
    ::spmd::TensorFactors dims;
    if (std::optional<SmallVector<int64_t>> shape = rules::staticShape(operand))
      for (int64_t size : *shape)
        dims.push_back(
            {rule.addFactor(size, ::spmd::FactorKind::NeedReplication)});
    rule.addTensor(std::move(dims));
  }
  rule.addTensor(pair.tensors[1]);
  return rule;
}

void mlir::spmd::registerReshapeRules(ShardingRuleRegistry &registry) {
  registry.add(tensor::CollapseShapeOp::getOperationName(), reshapeRule);
  registry.add(tensor::ExpandShapeOp::getOperationName(), reshapeRule);
  registry.add(tensor::ReshapeOp::getOperationName(), reshapeRule);
}
