//===- OpPartitioners.h - One partitioning handler per op family -*- C++
//-*-===//

#ifndef SPMD_PARTITIONER_OPPARTITIONERS_H
#define SPMD_PARTITIONER_OPPARTITIONERS_H

#include "partitioner/Partitioner.h"

#include "llvm/ADT/StringMap.h"

namespace mlir::spmd {

/// Partitions one op: reads its operands through the Partitioner and
/// records the local forms of its results. Returns failure after emitting
/// an error.
using PartitionFn = std::function<LogicalResult(Operation *, Partitioner &)>;
/// Builds the local op once operands are in place: `operands` are local,
/// `resultTypes` the local result types. The default clones the op.
using MaterializeFn = std::function<Operation *(
    Operation *, Partitioner &, ValueRange operands, TypeRange resultTypes)>;

class OpPartitionerRegistry {
public:
  static const OpPartitionerRegistry &get();

  void add(StringRef opName, PartitionFn fn) {
    handlers[opName] = std::move(fn);
  }
  void addMaterializer(StringRef opName, MaterializeFn fn) {
    materializers[opName] = std::move(fn);
  }

  /// The handler of `op`: its own, or the rule-driven one for ops with a
  /// sharding rule, or the replicating one.
  PartitionFn handlerFor(Operation *op) const;
  /// How to build the local form of `op`.
  Operation *materialize(Operation *op, Partitioner &p, ValueRange operands,
                         TypeRange resultTypes) const;

private:
  llvm::StringMap<PartitionFn> handlers;
  llvm::StringMap<MaterializeFn> materializers;
};

// Families, one file each.
void registerControlFlowPartitioners(OpPartitionerRegistry &registry);
void registerShapeMaterializers(OpPartitionerRegistry &registry);
void registerElementAccessPartitioners(OpPartitionerRegistry &registry);

/// Maps the tensors `op`'s regions use from outside it to their local
/// values, replicated (bodies index them at global positions).
LogicalResult mapCapturedTensors(Operation *op, Partitioner &p,
                                 IRMapping &mapping);

/// `op` cloned with local operands (scalars used inside regions map too)
/// and local result types, without the global sharding attributes: the
/// materialization of ops whose attributes do not depend on shapes.
Operation *cloneLocal(Operation *op, Partitioner &p, ValueRange operands,
                      TypeRange resultTypes);

/// Partitions an op through its factor rule: chooses how each factor is
/// split by cost (reshards of operands and results plus local compute),
/// reshards operands, and leaves results partial where reduction factors
/// are split.
LogicalResult partitionByRule(Operation *op, Partitioner &p);
/// Partitions an op that runs one of its regions (ir/Branches.h).
LogicalResult partitionBranch(Operation *op, Partitioner &p);
/// Partitions an op by replicating every tensor operand and computing the
/// global op on every device.
LogicalResult partitionReplicated(Operation *op, Partitioner &p);

} // namespace mlir::spmd

#endif // SPMD_PARTITIONER_OPPARTITIONERS_H
