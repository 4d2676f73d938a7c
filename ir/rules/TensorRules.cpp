//===- TensorRules.cpp - Rules of tensor creation and element access ------===//

#include "ir/ShardingRules.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::spmd;
using ::spmd::FactorKind;
using ::spmd::ShardingRule;

/// Free parallel factors for a tensor of `shape`.
static ::spmd::TensorFactors freeDims(ShardingRule &rule,
                                      ArrayRef<int64_t> shape,
                                      FactorKind kind = FactorKind::Parallel) {
  ::spmd::TensorFactors dims;
  for (int64_t size : shape)
    dims.push_back({rule.addFactor(size, kind)});
  return dims;
}

/// Ops that make tensors without reading any (tensor.empty, arith.constant,
/// tensor.splat, tensor.from_elements): each result is free.
static std::optional<ShardingRule> sourceRule(Operation *op) {
  if (op->getNumResults() == 0 ||
      llvm::any_of(op->getOperandTypes(),
                   [](Type t) { return llvm::isa<ShapedType>(t); }) ||
      op->getNumRegions() != 0)
    return std::nullopt;
  ShardingRule rule;
  rules::addScalars(rule, op->getNumOperands());
  for (Value result : op->getResults()) {
    std::optional<SmallVector<int64_t>> shape = rules::staticShape(result);
    rule.addTensor(shape ? freeDims(rule, *shape) : ::spmd::TensorFactors());
  }
  if (llvm::none_of(op->getResults(), [](Value v) {
        return llvm::isa<RankedTensorType>(v.getType());
      }))
    return std::nullopt;
  return rule;
}

/// tensor.cast: static shapes, so the same dimensions.
static std::optional<ShardingRule> castRule(Operation *op) {
  std::optional<SmallVector<int64_t>> shape =
      rules::staticShape(op->getResult(0));
  return ShardingRule::identity(*shape, 2);
}

/// tensor.extract: reading one element at a dynamic position needs the
/// whole tensor.
static std::optional<ShardingRule> extractRule(Operation *op) {
  auto extract = llvm::cast<tensor::ExtractOp>(op);
  ShardingRule rule;
  rule.addTensor(freeDims(rule, extract.getTensor().getType().getShape(),
                          FactorKind::NeedReplication));
  rules::addScalars(rule, extract.getIndices().size() + 1);
  return rule;
}

/// tensor.insert: the destination and the result are laid out alike.
static std::optional<ShardingRule> insertRule(Operation *op) {
  auto insert = llvm::cast<tensor::InsertOp>(op);
  ShardingRule rule;
  rule.addTensor({}); // scalar
  ::spmd::TensorFactors dims =
      freeDims(rule, insert.getDest().getType().getShape());
  rule.addTensor(dims);
  rules::addScalars(rule, insert.getIndices().size());
  rule.addTensor(dims);
  return rule;
}

/// tensor.gather: the result is the indices' batch dimensions, then the
/// source's dimensions (the gathered ones of size 1, or dropped when rank
/// reduced). Batch and kept source dimensions are parallel; gathered
/// dimensions and the coordinate dimension are read at positions from
/// data, so they stay whole.
static std::optional<ShardingRule> gatherRule(Operation *op) {
  auto gather = llvm::cast<tensor::GatherOp>(op);
  if (!rules::allStatic(op))
    return std::nullopt;
  ArrayRef<int64_t> source = gather.getSource().getType().getShape();
  ArrayRef<int64_t> indices = gather.getIndices().getType().getShape();
  ArrayRef<int64_t> gathered = gather.getGatherDims();
  bool dropped =
      gather.getResult().getType().getRank() ==
      int64_t(indices.size() - 1 + source.size() - gathered.size());
  ShardingRule rule;
  ::spmd::TensorFactors sourceDims, indexDims, resultDims;
  for (int64_t size : indices.drop_back()) {
    unsigned f = rule.addFactor(size, FactorKind::Parallel);
    indexDims.push_back({f});
    resultDims.push_back({f});
  }
  indexDims.push_back(
      {rule.addFactor(indices.back(), FactorKind::NeedReplication)});
  for (auto [d, size] : llvm::enumerate(source)) {
    if (llvm::is_contained(gathered, int64_t(d))) {
      sourceDims.push_back({rule.addFactor(size, FactorKind::NeedReplication)});
      if (!dropped)
        resultDims.push_back({});
      continue;
    }
    unsigned f = rule.addFactor(size, FactorKind::Parallel);
    sourceDims.push_back({f});
    resultDims.push_back({f});
  }
  rule.addTensor(sourceDims);
  rule.addTensor(indexDims);
  rule.addTensor(resultDims);
  return rule;
}

void mlir::spmd::registerTensorRules(ShardingRuleRegistry &registry) {
  registry.add(tensor::GatherOp::getOperationName(), gatherRule);
  registry.add(tensor::CastOp::getOperationName(), castRule);
  registry.add(tensor::ExtractOp::getOperationName(), extractRule);
  registry.add(tensor::InsertOp::getOperationName(), insertRule);
  registry.addFallback(sourceRule);
}
