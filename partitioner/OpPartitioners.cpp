//===- OpPartitioners.cpp - The registry of partitioning handlers ---------===//

#include "partitioner/OpPartitioners.h"

#include "ir/Branches.h"
#include "ir/ShardingRules.h"

#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::spmd;

const OpPartitionerRegistry &OpPartitionerRegistry::get() {
  static const OpPartitionerRegistry registry = [] {
    OpPartitionerRegistry r;
    registerControlFlowPartitioners(r);
    registerShapeMaterializers(r);
    registerElementAccessPartitioners(r);
    return r;
  }();
  return registry;
}

static bool touchesTensors(Operation *op) {
  auto isTensor = [](Type t) { return llvm::isa<TensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

/// Ops on scalars only are the same on every device.
static LogicalResult cloneScalarOp(Operation *op, Partitioner &p) {
  p.builder().clone(*op, p.scalars());
  return success();
}

PartitionFn OpPartitionerRegistry::handlerFor(Operation *op) const {
  auto it = handlers.find(op->getName().getStringRef());
  if (it != handlers.end())
    return it->second;
  if (isYieldingBranch(op))
    return partitionBranch;
  if (!touchesTensors(op))
    return cloneScalarOp;
  return partitionByRule;
}

Operation *OpPartitionerRegistry::materialize(Operation *op, Partitioner &p,
                                              ValueRange operands,
                                              TypeRange resultTypes) const {
  auto it = materializers.find(op->getName().getStringRef());
  if (it != materializers.end())
    return it->second(op, p, operands, resultTypes);
  return cloneLocal(op, p, operands, resultTypes);
}

LogicalResult mlir::spmd::mapCapturedTensors(Operation *op, Partitioner &p,
                                             IRMapping &mapping) {
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value value : captured) {
    auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
    if (!type || !p.has(value) || mapping.contains(value))
      continue;
    ::spmd::ShardState replicated;
    replicated.dims.resize(type.getRank());
    FailureOr<Value> whole = p.get(op, value, replicated);
    if (failed(whole))
      return failure();
    mapping.map(value, *whole);
  }
  return success();
}

Operation *mlir::spmd::cloneLocal(Operation *op, Partitioner &p,
                                  ValueRange operands, TypeRange resultTypes) {
  // Propagation's shardings describe global values: they are dropped.
  IRMapping mapping = p.scalars();
  for (auto [global, local] : llvm::zip_equal(op->getOperands(), operands))
    mapping.map(global, local);
  // Tensors the op's regions read from outside (an embedding table in a
  // body) are read at global positions: they come whole.
  if (failed(mapCapturedTensors(op, p, mapping)))
    return nullptr;
  Operation *local = p.builder().clone(*op, mapping);
  for (auto [result, type] : llvm::zip_equal(local->getResults(), resultTypes))
    result.setType(type);
  local->removeAttr(SpmdDialect::kShardingAttrName);
  local->removeAttr(SpmdDialect::kOriginsAttrName);
  return local;
}

LogicalResult mlir::spmd::partitionReplicated(Operation *op, Partitioner &p) {
  SmallVector<Value> operands;
  const MeshInfo *mesh = nullptr;
  for (Value operand : op->getOperands()) {
    auto type = llvm::dyn_cast<RankedTensorType>(operand.getType());
    if (!type) {
      operands.push_back(p.current(operand));
      continue;
    }
    const LocalValue &local = p.lookup(operand);
    mesh = local.mesh;
    ::spmd::ShardState replicated;
    replicated.dims.resize(type.getRank());
    FailureOr<Value> whole = p.get(op, operand, replicated);
    if (failed(whole))
      return failure();
    operands.push_back(*whole);
  }
  for (Value result : op->getResults())
    if (llvm::isa<RankedTensorType>(result.getType()) && !mesh) {
      auto layout = p.annotatedLayout(result);
      if (failed(layout))
        return failure();
      mesh = layout->first;
    }
  Operation *local = OpPartitionerRegistry::get().materialize(
      op, p, operands, op->getResultTypes());
  if (!local)
    return failure();
  for (auto [result, localResult] :
       llvm::zip_equal(op->getResults(), local->getResults())) {
    auto type = llvm::dyn_cast<RankedTensorType>(result.getType());
    if (!type) {
      p.scalars().map(result, localResult);
      continue;
    }
    ::spmd::ShardState replicated;
    replicated.dims.resize(type.getRank());
    p.set(result, {localResult, mesh, replicated});
  }
  return success();
}
