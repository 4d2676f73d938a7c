//===- TraitRules.cpp - Rules that follow from an op's traits -------------===//
//
// Ops of any dialect need no model when their traits say it all:
// - elementwise ops (arith and math on tensors: Elementwise; broadcasting
//   ones as in tosa: ResultsBroadcastableShape or TOSA's elementwise
//   trait): one parallel factor per result dimension. Operands are aligned
//   to the result's trailing dimensions; a unit dimension broadcast to a
//   larger one has no factor.
// - constants (ConstantLike): free factors; the partitioner makes a splat
//   where it is used and keeps other constants whole, sliced on use.
//
//===----------------------------------------------------------------------===//

#include "ir/ShardingModels.h"

#include "ir/Namespaces.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Traits.h"
#include "mlir/IR/OpDefinition.h"

using namespace mlir;
using namespace mlir::spmd;

static std::optional<OpShardingRule> elementwiseRule(Operation *op) {
  if (!op->hasTrait<OpTrait::Elementwise>() &&
      !op->hasTrait<OpTrait::ResultsBroadcastableShape>() &&
      !op->hasTrait<OpTrait::tosa::TosaElementwiseOperator>())
    return std::nullopt;
  if (op->getNumResults() == 0)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> shape =
      rules::staticShape(op->getResult(0));
  if (!shape)
    return std::nullopt;

  OpShardingRule rule;
  TensorFactors resultDims = rules::freeDims(rule, *shape);
  for (Value operand : op->getOperands()) {
    std::optional<SmallVector<int64_t>> operandShape =
        rules::staticShape(operand);
    if (!operandShape) {
      rule.addTensor({});
      continue;
    }
    std::optional<TensorFactors> dims =
        rules::broadcastDims(*operandShape, *shape, resultDims);
    if (!dims)
      return std::nullopt;
    rule.addTensor(std::move(*dims));
  }
  for (Value result : op->getResults()) {
    if (rules::staticShape(result) != shape)
      return std::nullopt;
    rule.addTensor(resultDims);
  }
  return rule;
}

std::optional<OpShardingRule> mlir::spmd::traitRule(Operation *op) {
  if (op->hasTrait<OpTrait::ConstantLike>() && op->getNumResults() == 1 &&
      op->getNumOperands() == 0) {
    std::optional<SmallVector<int64_t>> shape =
        rules::staticShape(op->getResult(0));
    if (!shape)
      return std::nullopt;
    OpShardingRule rule;
    rule.addTensor(rules::freeDims(rule, *shape));
    return rule;
  }
  return elementwiseRule(op);
}
