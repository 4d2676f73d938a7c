//===- TosaModels.cpp - tosa ops their traits do not cover ----------------===//
//
// Programs written for upstream MLIR's sharding use tosa; its elementwise
// ops are covered by their traits (TraitRules.cpp).
//
//===----------------------------------------------------------------------===//

#include "ir/ShardingModels.h"

#include "ir/Namespaces.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::spmd;

namespace {
/// tosa.matmul: [b, m, k] x [b, k, n] -> [b, m, n], plus two zero points. A
/// split k leaves a pending sum. It computes (a - a_zp) * (b - b_zp): zeros
/// in the padding of A and B add nothing only when both zero points are
/// zero, so an uneven k is split only then.
struct MatMulModel
    : ShardingOpInterface::ExternalModel<MatMulModel, tosa::MatMulOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    auto matmul = llvm::cast<tosa::MatMulOp>(op);
    ArrayRef<int64_t> a = matmul.getA().getType().getShape();
    ArrayRef<int64_t> b = matmul.getB().getType().getShape();
    OpShardingRule rule;
    unsigned batch = rule.addFactor(a[0], FactorKind::Parallel);
    unsigned m = rule.addFactor(a[1], FactorKind::Parallel);
    unsigned k = rule.addFactor(a[2], FactorKind::Reduction);
    unsigned n = rule.addFactor(b[2], FactorKind::Parallel);
    rule.addTensor({{batch}, {m}, {k}});
    rule.addTensor({{batch}, {k}, {n}});
    for (Value zeroPoint : op->getOperands().drop_front(2)) {
      std::optional<SmallVector<int64_t>> shape =
          rules::staticShape(zeroPoint);
      rule.addTensor(rules::freeDims(rule,
                                     shape ? *shape : SmallVector<int64_t>(),
                                     FactorKind::NeedReplication));
    }
    rule.addTensor({{batch}, {m}, {n}});
    return rule;
  }

  std::optional<ReductionKind> getReductionKind(Operation *, unsigned) const {
    return ReductionKind::Sum;
  }

  std::optional<SmallVector<unsigned>>
  getIdentityPaddedOperands(Operation *op, ArrayRef<unsigned>) const {
    for (Value zeroPoint : op->getOperands().drop_front(2)) {
      DenseElementsAttr value;
      if (!matchPattern(zeroPoint, m_Constant(&value)) || !value.isSplat())
        return std::nullopt;
      bool zero = llvm::isa<FloatType>(value.getElementType())
                      ? value.getSplatValue<APFloat>().isZero()
                      : value.getSplatValue<APInt>().isZero();
      if (!zero)
        return std::nullopt;
    }
    return SmallVector<unsigned>{0, 1};
  }
};

/// tosa.mul: elementwise over its two inputs, broadcasting unit dimensions;
/// its shift (a one-element tensor, not elementwise, so the op has no
/// elementwise trait) is read whole.
struct MulModel : ShardingOpInterface::ExternalModel<MulModel, tosa::MulOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    auto mul = llvm::cast<tosa::MulOp>(op);
    std::optional<SmallVector<int64_t>> shape =
        rules::staticShape(mul.getResult());
    if (!shape)
      return std::nullopt;
    OpShardingRule rule;
    TensorFactors resultDims = rules::freeDims(rule, *shape);
    for (Value input : {mul.getInput1(), mul.getInput2()}) {
      std::optional<SmallVector<int64_t>> inputShape =
          rules::staticShape(input);
      std::optional<TensorFactors> dims =
          inputShape ? rules::broadcastDims(*inputShape, *shape, resultDims)
                     : std::nullopt;
      if (!dims)
        return std::nullopt;
      rule.addTensor(std::move(*dims));
    }
    std::optional<SmallVector<int64_t>> shift =
        rules::staticShape(mul.getShift());
    if (!shift)
      return std::nullopt;
    rule.addTensor(rules::freeDims(rule, *shift, FactorKind::NeedReplication));
    rule.addTensor(resultDims);
    return rule;
  }
};
/// The kind a split tosa reduction's partial values combine with.
static ReductionKind reductionKindOf(tosa::ReduceSumOp) {
  return ReductionKind::Sum;
}
static ReductionKind reductionKindOf(tosa::ReduceProductOp) {
  return ReductionKind::Prod;
}
static ReductionKind reductionKindOf(tosa::ReduceMaxOp op) {
  return op.getNanMode() == tosa::NanPropagationMode::IGNORE
             ? ReductionKind::MaxNum
             : ReductionKind::Max;
}
static ReductionKind reductionKindOf(tosa::ReduceMinOp op) {
  return op.getNanMode() == tosa::NanPropagationMode::IGNORE
             ? ReductionKind::MinNum
             : ReductionKind::Min;
}

/// tosa.reduce_sum, _product, _max and _min: the input's `axis` dimension
/// is reduced to size 1, the others are parallel. A split axis leaves
/// pending values, padded with the reduction's identity when uneven.
template <typename ReduceOp>
struct ReduceModel
    : ShardingOpInterface::ExternalModel<ReduceModel<ReduceOp>, ReduceOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    auto reduce = llvm::cast<ReduceOp>(op);
    std::optional<SmallVector<int64_t>> shape =
        rules::staticShape(reduce.getInput());
    if (!shape)
      return std::nullopt;
    int64_t axis = reduce.getAxis();
    OpShardingRule rule;
    TensorFactors input, output;
    for (auto [dim, size] : llvm::enumerate(*shape)) {
      bool reduced = int64_t(dim) == axis;
      unsigned factor = rule.addFactor(size, reduced ? FactorKind::Reduction
                                                     : FactorKind::Parallel);
      input.push_back({factor});
      output.push_back(reduced ? DimFactors() : DimFactors{factor});
    }
    rule.addTensor(input);
    rule.addTensor(output);
    return rule;
  }

  std::optional<ReductionKind> getReductionKind(Operation *op, unsigned) const {
    return reductionKindOf(llvm::cast<ReduceOp>(op));
  }

  std::optional<SmallVector<unsigned>>
  getIdentityPaddedOperands(Operation *, ArrayRef<unsigned>) const {
    return SmallVector<unsigned>{0};
  }
};
} // namespace

void mlir::spmd::registerTosaModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tosa::TosaDialect *) {
    tosa::MatMulOp::attachInterface<MatMulModel>(*context);
    tosa::MulOp::attachInterface<MulModel>(*context);
    tosa::ReduceSumOp::attachInterface<ReduceModel<tosa::ReduceSumOp>>(
        *context);
    tosa::ReduceProductOp::attachInterface<ReduceModel<tosa::ReduceProductOp>>(
        *context);
    tosa::ReduceMaxOp::attachInterface<ReduceModel<tosa::ReduceMaxOp>>(
        *context);
    tosa::ReduceMinOp::attachInterface<ReduceModel<tosa::ReduceMinOp>>(
        *context);
  });
}
