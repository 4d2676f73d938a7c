//===- ShardingModels.cpp - ShardingOpInterface for upstream ops ----------===//

#include "ir/ShardingModels.h"
#include "ir/Namespaces.h"

using namespace mlir;
using namespace mlir::spmd;

void mlir::spmd::registerShardingModels(DialectRegistry &registry) {
  registerStructuredModels(registry);
  registerReshapeModels(registry);
  registerSliceModels(registry);
  registerTensorModels(registry);
  registerTosaModels(registry);
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

void rules::addScalars(ShardingRule &rule, unsigned count) {
  for (unsigned i = 0; i < count; ++i)
    rule.addTensor({});
}

TensorFactors rules::dimsExcept(ShardingRule &rule, ArrayRef<int64_t> shape,
                                int64_t dim, FactorKind kind) {
  TensorFactors dims;
  for (auto [d, size] : llvm::enumerate(shape))
    dims.push_back({rule.addFactor(
        size, int64_t(d) == dim ? kind : FactorKind::Parallel)});
  return dims;
}

std::optional<TensorFactors>
rules::broadcastDims(ArrayRef<int64_t> operandShape,
                     ArrayRef<int64_t> resultShape,
                     const TensorFactors &resultDims) {
  if (operandShape.size() > resultShape.size())
    return std::nullopt;
  size_t offset = resultShape.size() - operandShape.size();
  TensorFactors dims;
  for (auto [d, size] : llvm::enumerate(operandShape)) {
    if (size == resultShape[offset + d])
      dims.push_back(resultDims[offset + d]);
    else if (size == 1)
      dims.push_back({});
    else
      return std::nullopt;
  }
  return dims;
}

TensorFactors rules::freeDims(ShardingRule &rule, ArrayRef<int64_t> shape,
                              FactorKind kind) {
  TensorFactors dims;
  for (int64_t size : shape)
    dims.push_back({rule.addFactor(size, kind)});
  return dims;
}
