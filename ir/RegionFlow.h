//===- RegionFlow.h - Values carried through an op's regions ----*- C++ -*-===//
//
// A RegionBranchOpInterface op (scf.for, scf.while, scf.if,
// scf.index_switch, scf.execute_region, or a user's) passes values from
// its operands into its regions, from region to region through their
// terminators, and out to its results. What can hold one carried value
// forms a class: the operands that pass it (an init, what a body yields
// back) and the inputs that receive it (region arguments, results).
// Propagation gives a class one sharding and the partitioner one layout,
// so both sides of every edge agree. Classes are of operands, not values:
// one value passed at two positions may be carried in two layouts.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_REGIONFLOW_H
#define SPMD_IR_REGIONFLOW_H

#include "ir/Namespaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

namespace mlir::spmd {

struct CarriedValue {
  /// Operands of the op or of its regions' terminators passing it on.
  SmallVector<OpOperand *> operands;
  /// Region arguments and results receiving it.
  SmallVector<Value> inputs;
};

/// The classes of `op`'s carried values, in the order they are first seen
/// (branch points in region order, successor operands before the inputs
/// they enter).
SmallVector<CarriedValue> regionFlowClasses(RegionBranchOpInterface op);

/// Whether the partitioner can rebuild `op` region by region: every region
/// is empty or one block, ended by a RegionBranchTerminatorOpInterface
/// without regions of its own.
bool hasStructuredRegions(RegionBranchOpInterface op);

/// Why a function of several blocks is refused (by the partitioner and the
/// executor alike).
inline constexpr llvm::StringLiteral kSeveralBlocks =
    "with several blocks (branches between blocks) is not supported: "
    "express control flow with scf.if, scf.for or scf.while";

} // namespace mlir::spmd

#endif // SPMD_IR_REGIONFLOW_H
