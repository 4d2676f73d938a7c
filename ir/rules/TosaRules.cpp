//===- TosaRules.cpp - Rules of tosa ops that are not elementwise ---------===//
//
// Programs written for upstream MLIR's sharding use tosa; its elementwise
// ops are covered by ElementwiseRules.cpp.
//
//===----------------------------------------------------------------------===//

#include "ir/ShardingRules.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;
using namespace mlir::spmd;
using ::spmd::FactorKind;
using ::spmd::ShardingRule;

/// tosa.matmul: [b, m, k] x [b, k, n] -> [b, m, n], plus two zero points.
static std::optional<ShardingRule> matmulRule(Operation *op) {
  auto matmul = llvm::cast<tosa::MatMulOp>(op);
  ArrayRef<int64_t> a = matmul.getA().getType().getShape();
  ArrayRef<int64_t> b = matmul.getB().getType().getShape();
  ShardingRule rule;
  unsigned batch = rule.addFactor(a[0], FactorKind::Parallel);
  unsigned m = rule.addFactor(a[1], FactorKind::Parallel);
  unsigned k = rule.addFactor(a[2], FactorKind::Reduction);
  unsigned n = rule.addFactor(b[2], FactorKind::Parallel);
  rule.addTensor({{batch}, {m}, {k}});
  rule.addTensor({{batch}, {k}, {n}});
  for (Value zeroPoint : op->getOperands().drop_front(2)) {
    ::spmd::TensorFactors dims;
    if (std::optional<SmallVector<int64_t>> shape =
            rules::staticShape(zeroPoint))
      for (int64_t size : *shape)
        dims.push_back({rule.addFactor(size, FactorKind::NeedReplication)});
    rule.addTensor(std::move(dims));
  }
  rule.addTensor({{batch}, {m}, {n}});
  return rule;
}

void mlir::spmd::registerTosaRules(ShardingRuleRegistry &registry) {
  registry.add(tosa::MatMulOp::getOperationName(), matmulRule);
}
