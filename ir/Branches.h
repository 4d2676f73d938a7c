//===- Branches.h - Ops that run one of their regions ------------*- C++ -*-===//
//
// scf.if, scf.index_switch and single-block scf.execute_region run (at
// most) one region, without block arguments, whose scf.yield gives the
// op's results: propagation ties each result to what every region yields,
// and the partitioner rebuilds the op with partitioned regions.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_BRANCHES_H
#define SPMD_IR_BRANCHES_H

#include "mlir/IR/Operation.h"

namespace mlir::spmd {

/// Whether `op` is a branch as above.
bool isYieldingBranch(Operation *op);

/// The values region `i` of a yielding branch yields (empty for an empty
/// region, as scf.if without else).
ValueRange branchYield(Operation *op, unsigned i);

} // namespace mlir::spmd

#endif // SPMD_IR_BRANCHES_H
