//===- ShardingModels.h - ShardingOpInterface for upstream ops --*- C++ -*-===//
//
// External models of ShardingOpInterface for the upstream dialects the
// compiler reads, one family per file in ir/models/. Elementwise ops and
// constants need no model: their rule follows from their traits
// (traitRule).
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_SHARDINGMODELS_H
#define SPMD_IR_SHARDINGMODELS_H

#include "ir/Namespaces.h"
#include "ir/ShardingInterface.h"

#include "mlir/IR/DialectRegistry.h"

namespace mlir::spmd {

/// Attaches every family's models (each when its dialect is loaded).
void registerShardingModels(DialectRegistry &registry);

// One function per family, each in its own file under ir/models/.
void registerStructuredModels(DialectRegistry &registry);
void registerReshapeModels(DialectRegistry &registry);
void registerSliceModels(DialectRegistry &registry);
void registerTensorModels(DialectRegistry &registry);
void registerTosaModels(DialectRegistry &registry);

/// The rule an op's traits imply, for ops without a model: elementwise ops
/// (MLIR's Elementwise or ResultsBroadcastableShape, TOSA's elementwise
/// trait) and constants (models/TraitRules.cpp).
std::optional<OpShardingRule> traitRule(Operation *op);

/// Helpers shared by the families.
namespace rules {
/// The static shape of `value`, or nullopt if it is not a statically shaped
/// ranked tensor.
std::optional<SmallVector<int64_t>> staticShape(Value value);
/// True when every operand and result is a static tensor or not shaped.
bool allStatic(Operation *op);
/// Adds `count` rank-0 tensors (operands that are not tensors).
void addScalars(ShardingRule &rule, unsigned count);
/// Adds one factor of `kind` per dimension of `shape` and returns them as
/// a tensor's dimensions.
TensorFactors freeDims(ShardingRule &rule, ArrayRef<int64_t> shape,
                       FactorKind kind = FactorKind::Parallel);
/// The factors of an operand of `operandShape` broadcast to a result of
/// `resultShape` with `resultDims`, aligned to the trailing dimensions: a
/// unit dimension broadcast to a larger one has none. Nullopt when the
/// shapes do not broadcast.
std::optional<TensorFactors> broadcastDims(ArrayRef<int64_t> operandShape,
                                           ArrayRef<int64_t> resultShape,
                                           const TensorFactors &resultDims);
/// One factor per dimension of `shape`: `kind` for dimension `dim`,
/// parallel for the others (a concatenated or normalized dimension).
TensorFactors dimsExcept(ShardingRule &rule, ArrayRef<int64_t> shape,
                         int64_t dim, FactorKind kind);
} // namespace rules

} // namespace mlir::spmd

#endif // SPMD_IR_SHARDINGMODELS_H
