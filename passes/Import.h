//===- Import.h - Annotations from other stacks to spmd form ----*- C++ -*-===//

#ifndef SPMD_PASSES_IMPORT_H
#define SPMD_PASSES_IMPORT_H

#include "ir/Namespaces.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::spmd {

/// Upstream `shard` dialect: every `shard.grid` becomes a `spmd.mesh` of the
/// same name (axes "axis0", "axis1", ...), every `shard.shard` a
/// `spmd.sharding_constraint`; the `shard.sharding` ops are removed.
LogicalResult importShardDialect(ModuleOp module);

/// GSPMD strings in `mhlo.sharding` attributes of function arguments and
/// results become `spmd.sharding` attributes on one common mesh (or, when
/// the device orders admit none, one mesh per distinct tiling).
LogicalResult importGspmdShardings(ModuleOp module);

/// Paddings, offsets, sizes, strides and shapes written as SSA constants
/// (`tensor.pad %x low[%c0] high[%c1]`) become the static entries they
/// stand for, in every op that has such lists, so that no later reader
/// takes them for values known only at run time. Fails, with the op's
/// verifier error, where the constants contradict the op's types.
LogicalResult importConstantIndices(ModuleOp module);

/// Warns at the yield of each manual region result said to be the same
/// along a manual axis (its out_sharding leaves it whole there) whose value
/// may differ along it (passes/ManualReplication.cpp).
void warnOnDifferingReplicatedResults(ModuleOp module);

} // namespace mlir::spmd

#endif // SPMD_PASSES_IMPORT_H
