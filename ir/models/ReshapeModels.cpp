//===- ReshapeModels.cpp - collapse_shape, expand_shape, reshape ----------===//
//
// Reshapes use compound factors: the finest common factorisation of the two
// shapes (ShardingRule::reshape), so [8, 16] -> [128] sharded on the major
// dimension keeps its sharding. A compound dimension is only split through
// its major factors, so locally the op is the same reshape of local sizes.
//
//===----------------------------------------------------------------------===//

#include "ir/ShardingModels.h"

#include "ir/Namespaces.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::spmd;

/// Source is operand 0, result is result 0; other operands (the shape
/// tensor of tensor.reshape) get their own need-replication factors.
static std::optional<OpShardingRule> reshapeRule(Operation *op) {
  std::optional<SmallVector<int64_t>> source =
      rules::staticShape(op->getOperand(0));
  std::optional<SmallVector<int64_t>> result =
      rules::staticShape(op->getResult(0));
  if (!source || !result)
    return std::nullopt;
  ShardingRule pair = ShardingRule::reshape(*source, *result);
  OpShardingRule rule(pair);
  rule.tensors = {pair.tensors[0]};
  for (Value operand : op->getOperands().drop_front()) {
    std::optional<SmallVector<int64_t>> shape = rules::staticShape(operand);
    rule.addTensor(rules::freeDims(rule,
                                   shape ? *shape : SmallVector<int64_t>(),
                                   FactorKind::NeedReplication));
  }
  rule.addTensor(pair.tensors[1]);
  return rule;
}

namespace {
/// expand_shape and collapse_shape: the same grouping of local sizes.
template <typename OpTy>
struct RegroupModel
    : ShardingOpInterface::ExternalModel<RegroupModel<OpTy>, OpTy> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    return reshapeRule(op);
  }
  Operation *buildLocal(Operation *op, LocalRebuild &rebuild) const {
    return OpTy::create(rebuild.builder(), op->getLoc(),
                        llvm::cast<RankedTensorType>(rebuild.resultTypes()[0]),
                        rebuild.operand(0),
                        llvm::cast<OpTy>(op).getReassociationIndices());
  }
};

/// tensor.reshape takes its shape from a tensor: give it the local one.
struct ReshapeModel
    : ShardingOpInterface::ExternalModel<ReshapeModel, tensor::ReshapeOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    return reshapeRule(op);
  }
  Operation *buildLocal(Operation *op, LocalRebuild &rebuild) const {
    OpBuilder &b = rebuild.builder();
    auto type = llvm::cast<RankedTensorType>(rebuild.resultTypes()[0]);
    auto shapeType = llvm::cast<RankedTensorType>(op->getOperand(1).getType());
    SmallVector<Attribute> sizes;
    for (int64_t size : type.getShape())
      sizes.push_back(b.getIntegerAttr(shapeType.getElementType(), size));
    Value shape = arith::ConstantOp::create(
        b, op->getLoc(), DenseElementsAttr::get(shapeType, sizes));
    return tensor::ReshapeOp::create(b, op->getLoc(), type, rebuild.operand(0),
                                     shape);
  }
};
} // namespace

void mlir::spmd::registerReshapeModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    tensor::CollapseShapeOp::attachInterface<
        RegroupModel<tensor::CollapseShapeOp>>(*context);
    tensor::ExpandShapeOp::attachInterface<
        RegroupModel<tensor::ExpandShapeOp>>(*context);
    tensor::ReshapeOp::attachInterface<ReshapeModel>(*context);
  });
}
