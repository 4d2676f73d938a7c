//===- CustomShardingModel.cpp - How the compiler shards sum_squares ------===//
//
// custom.sum_squares in factors: every dimension but the last is parallel,
// the last is a reduction. Split over devices, each holds a partial sum
// (pending `sum`); zeros in the padding of an uneven split square to zero,
// so padded iterations add nothing. Locally it is the same op on the local
// shapes.
//
//===----------------------------------------------------------------------===//

#include "CustomDialect.h"

#include "ir/Namespaces.h"
#include "ir/ShardingInterface.h"

using namespace mlir;
using namespace mlir::spmd;

namespace {
struct SumSquaresSharding
    : ShardingOpInterface::ExternalModel<SumSquaresSharding,
                                         custom::SumSquaresOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    ArrayRef<int64_t> shape =
        llvm::cast<custom::SumSquaresOp>(op).getInput().getType().getShape();
    OpShardingRule rule;
    TensorFactors input, result;
    for (int64_t size : shape.drop_back()) {
      unsigned f = rule.addFactor(size, FactorKind::Parallel);
      input.push_back({f});
      result.push_back({f});
    }
    input.push_back({rule.addFactor(shape.back(), FactorKind::Reduction)});
    rule.addTensor(input);
    rule.addTensor(result);
    return rule;
  }

  std::optional<ReductionKind> getReductionKind(Operation *, unsigned) const {
    return ReductionKind::Sum;
  }

  std::optional<SmallVector<unsigned>>
  getIdentityPaddedOperands(Operation *, ArrayRef<unsigned>) const {
    return SmallVector<unsigned>{0};
  }

  Operation *buildLocal(Operation *op, LocalRebuild &rebuild) const {
    return custom::SumSquaresOp::create(
        rebuild.builder(), op->getLoc(),
        llvm::cast<RankedTensorType>(rebuild.resultTypes()[0]),
        rebuild.operand(0));
  }
};
} // namespace

void custom::registerShardingModel(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, CustomDialect *) {
    SumSquaresOp::attachInterface<SumSquaresSharding>(*context);
  });
}
