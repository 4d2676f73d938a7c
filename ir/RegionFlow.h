//===- RegionFlow.h - Values carried through an op's regions ----*- C++ -*-===//
//
// A RegionBranchOpInterface op (scf.for, scf.while, scf.if,
// scf.index_switch, scf.execute_region, or a user's) passes values from
// its operands into its regions, from region to region through their
// terminators, and out to its results. The values that can hold the same
// carried value form one class: an init, the region arguments it enters,
// what the body yields back, and the result. Propagation gives a class one
// sharding and the partitioner one layout, so both sides of every edge
// agree.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_REGIONFLOW_H
#define SPMD_IR_REGIONFLOW_H

#include "mlir/Interfaces/ControlFlowInterfaces.h"

namespace mlir::spmd {

/// The classes of `op`'s carried values, each in the order its values are
/// first seen (successor operands before the inputs they enter, branch
/// points in region order); classes ordered alike.
SmallVector<SmallVector<Value>> regionFlowClasses(RegionBranchOpInterface op);

/// Whether the partitioner can rebuild `op` region by region: every region
/// is empty or one block, ended by a RegionBranchTerminatorOpInterface.
bool hasStructuredRegions(RegionBranchOpInterface op);

} // namespace mlir::spmd

#endif // SPMD_IR_REGIONFLOW_H
