//===- SpmdOps.h - Ops of the spmd dialect ----------------------*- C++ -*-===//

#ifndef SPMD_IR_SPMDOPS_H
#define SPMD_IR_SPMDOPS_H

#include "ir/ShardingInterface.h"
#include "ir/SpmdDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::spmd {
/// A collective's rule: a parallel factor shared by operand and result per
/// dimension but the moved ones (CollectiveOpInterface::getMovedDims),
/// which must stay whole. Inside a partly manual region the op is then
/// split over the free axes like any elementwise op.
std::optional<OpShardingRule> collectiveShardingRule(CollectiveOpInterface op);
} // namespace mlir::spmd

#define GET_OP_CLASSES
#include "ir/SpmdOps.h.inc"

#endif // SPMD_IR_SPMDOPS_H
