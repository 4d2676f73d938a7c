//===- CapturedReads.h - Tables a linalg body reads -------------*- C++ -*-===//
//
// See CapturedReads.cpp: which layout each tensor read from inside a
// partitioned linalg body is brought to, and how the reads become local.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PARTITIONER_CAPTUREDREADS_H
#define SPMD_PARTITIONER_CAPTUREDREADS_H

#include "ir/Namespaces.h"
#include "partitioner/Partitioner.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::spmd {

struct CapturedReads {
  struct Table {
    Value global;
    Value local;
    ShardState layout;
  };
  std::vector<Table> tables;
  /// The op's results are pending sums over these axes.
  AxisList pendingAxes;
};

/// The layout `op`'s body reads `table` in when the table is in `current`
/// and the op's loops are split as `loopAxes` (loops of `loopSizes`): its
/// split dimensions that every read keeps local, the others gathered. Adds
/// to `pendingAxes` the axes over which the op's results become pending
/// sums. The partitioner brings the table there, and auto-sharding prices
/// that copy.
ShardState capturedReadLayout(linalg::LinalgOp op, Value table,
                              const ShardState &current, const DeviceMesh &mesh,
                              ArrayRef<AxisList> loopAxes,
                              ArrayRef<int64_t> loopSizes,
                              AxisList *pendingAxes = nullptr);

/// Chooses the layout of each tensor `op`'s body reads from outside it,
/// given how its loops are split (`loopAxes`, loops of `loopSizes`), and
/// brings the tensors there.
FailureOr<CapturedReads> planCapturedReads(linalg::LinalgOp op, Partitioner &p,
                                           const MeshInfo &mesh,
                                           ArrayRef<AxisList> loopAxes,
                                           ArrayRef<int64_t> loopSizes);

/// Rewrites the reads in the body of `local` (the op's local clone, whose
/// indices are global positions) into reads of the local tables.
void rewriteCapturedReads(OpBuilder &b, linalg::LinalgOp local,
                          const CapturedReads &reads, const MeshInfo &mesh);

} // namespace mlir::spmd

#endif // SPMD_PARTITIONER_CAPTUREDREADS_H
