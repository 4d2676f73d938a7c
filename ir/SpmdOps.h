//===- SpmdOps.h - Ops of the spmd dialect ----------------------*- C++ -*-===//

#ifndef SPMD_IR_SPMDOPS_H
#define SPMD_IR_SPMDOPS_H

#include "ir/ShardingInterface.h"
#include "ir/SpmdDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "ir/SpmdOps.h.inc"

#endif // SPMD_IR_SPMDOPS_H
