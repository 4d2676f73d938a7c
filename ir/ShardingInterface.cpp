//===- ShardingInterface.cpp - What an op tells the compiler --------------===//

#include "ir/ShardingInterface.h"
#include "ir/ShardingModels.h"
#include "ir/SpmdDialect.h"

using namespace mlir;
using namespace mlir::spmd;

#include "ir/ShardingInterface.cpp.inc"

Operation *mlir::spmd::cloneLocal(LocalRebuild &rebuild) {
  Operation *local = rebuild.builder().clone(*rebuild.getOp(), rebuild.mapping());
  for (auto [result, type] :
       llvm::zip_equal(local->getResults(), rebuild.resultTypes()))
    result.setType(type);
  // Propagation's shardings describe global values.
  local->removeAttr(SpmdDialect::kShardingAttrName);
  local->removeAttr(SpmdDialect::kOriginsAttrName);
  return local;
}

RankedTensorType mlir::spmd::localType(RankedTensorType type,
                                       const MeshInfo &mesh,
                                       const ::spmd::ShardState &state) {
  std::vector<int64_t> shape =
      ::spmd::localShape(mesh.mesh, type.getShape(), state);
  return RankedTensorType::get(shape, type.getElementType());
}

std::optional<OpShardingRule> mlir::spmd::getShardingRule(Operation *op) {
  if (!rules::allStatic(op))
    return std::nullopt;
  if (auto sharding = llvm::dyn_cast<ShardingOpInterface>(op))
    return sharding.getShardingRule();
  return traitRule(op);
}

std::optional<::spmd::ReductionKind>
mlir::spmd::getReductionKind(Operation *op, unsigned result) {
  if (auto sharding = llvm::dyn_cast<ShardingOpInterface>(op))
    return sharding.getReductionKind(result);
  return std::nullopt;
}
