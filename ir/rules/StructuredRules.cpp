//===- StructuredRules.cpp - Rules of linalg structured ops ---------------===//
//
// Derived from indexing maps, so every named op and linalg.generic is
// covered at once: one factor per loop, parallel or reduction as its
// iterator. Operand dimensions indexed by `dN` are factor N; constant 0
// (a broadcast unit dimension) is no factor. Convolution-like sums such as
// `d1 * 2 + d4` index the input by the output's spatial loop (d1); it and
// the window loop (d4) become permutation factors: sharding either needs
// neighbouring input elements (halos). Any other expression makes its loops
// need-replication.
//
//===----------------------------------------------------------------------===//

#include "ir/ShardingRules.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::spmd;
using ::spmd::FactorKind;

/// The loops of `expr` if it is a sum of loops times constants.
static std::optional<SmallVector<unsigned>> sumOfScaledLoops(AffineExpr expr) {
  SmallVector<unsigned> loops;
  std::function<bool(AffineExpr)> walk = [&](AffineExpr e) {
    if (auto dim = llvm::dyn_cast<AffineDimExpr>(e)) {
      loops.push_back(dim.getPosition());
      return true;
    }
    auto binary = llvm::dyn_cast<AffineBinaryOpExpr>(e);
    if (!binary)
      return false;
    if (binary.getKind() == AffineExprKind::Add)
      return walk(binary.getLHS()) && walk(binary.getRHS());
    if (binary.getKind() == AffineExprKind::Mul &&
        llvm::isa<AffineConstantExpr>(binary.getRHS()))
      return walk(binary.getLHS());
    return false;
  };
  if (!walk(expr))
    return std::nullopt;
  return loops;
}

static std::optional<::spmd::ShardingRule> structuredRule(Operation *op) {
  auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return std::nullopt;
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;

  ::spmd::ShardingRule rule;
  for (auto [size, iterator] :
       llvm::zip_equal(ranges, linalgOp.getIteratorTypesArray()))
    rule.addFactor(size, iterator == utils::IteratorType::reduction
                             ? FactorKind::Reduction
                             : FactorKind::Parallel);

  // Loops that index some init (output) are the ones a convolution's input
  // follows.
  llvm::SmallBitVector outputLoops(ranges.size());
  for (OpOperand &init : linalgOp.getDpsInitsMutable())
    for (AffineExpr e : linalgOp.getMatchingIndexingMap(&init).getResults())
      if (auto dim = llvm::dyn_cast<AffineDimExpr>(e))
        outputLoops.set(dim.getPosition());

  auto tensorOf = [&](AffineMap map) {
    ::spmd::TensorFactors dims;
    for (AffineExpr e : map.getResults()) {
      if (auto dim = llvm::dyn_cast<AffineDimExpr>(e)) {
        dims.push_back({dim.getPosition()});
        continue;
      }
      if (llvm::isa<AffineConstantExpr>(e)) {
        dims.push_back({});
        continue;
      }
      std::optional<SmallVector<unsigned>> loops = sumOfScaledLoops(e);
      auto spatial =
          loops ? llvm::find_if(*loops,
                                [&](unsigned l) { return outputLoops.test(l); })
                : nullptr;
      if (!loops || spatial == loops->end()) {
        for (unsigned l : loops ? *loops : SmallVector<unsigned>())
          rule.factorKinds[l] = FactorKind::NeedReplication;
        if (!loops)
          e.walk([&](AffineExpr sub) {
            if (auto dim = llvm::dyn_cast<AffineDimExpr>(sub))
              rule.factorKinds[dim.getPosition()] = FactorKind::NeedReplication;
          });
        dims.push_back({});
        continue;
      }
      // Sharding the spatial loop, or the window loops that shift it, needs
      // neighbouring elements of this operand.
      for (unsigned l : *loops)
        if (rule.factorKinds[l] != FactorKind::NeedReplication)
          rule.factorKinds[l] = FactorKind::Permutation;
      dims.push_back({*spatial});
    }
    return dims;
  };

  for (OpOperand &operand : op->getOpOperands())
    rule.addTensor(tensorOf(linalgOp.getMatchingIndexingMap(&operand)));
  for (OpOperand &init : linalgOp.getDpsInitsMutable())
    if (llvm::isa<RankedTensorType>(init.get().getType()))
      rule.addTensor(tensorOf(linalgOp.getMatchingIndexingMap(&init)));
  return rule;
}

/// linalg.softmax: every dimension but the normalized one is parallel.
static std::optional<::spmd::ShardingRule> softmaxRule(Operation *op) {
  auto softmax = llvm::cast<linalg::SoftmaxOp>(op);
  if (!rules::allStatic(op))
    return std::nullopt;
  ArrayRef<int64_t> shape = softmax.getInputOperandType().getShape();
  ::spmd::ShardingRule rule;
  ::spmd::TensorFactors dims;
  for (auto [d, size] : llvm::enumerate(shape))
    dims.push_back({rule.addFactor(size, d == softmax.getDimension()
                                             ? FactorKind::NeedReplication
                                             : FactorKind::Parallel)});
  for (unsigned t = 0; t < 3; ++t) // input, init, result
    rule.addTensor(dims);
  return rule;
}

void mlir::spmd::registerStructuredRules(ShardingRuleRegistry &registry) {
  registry.add(linalg::SoftmaxOp::getOperationName(), softmaxRule);
  registry.addFallback(structuredRule);
}
