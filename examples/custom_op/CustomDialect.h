//===- CustomDialect.h - A user's dialect with one op -----------*- C++ -*-===//

#ifndef CUSTOM_DIALECT_H
#define CUSTOM_DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "CustomDialect.h.inc"

#define GET_OP_CLASSES
#include "CustomOps.h.inc"

namespace custom {
/// Attaches the op's ShardingOpInterface model (CustomShardingModel.cpp).
void registerShardingModel(mlir::DialectRegistry &registry);
/// Attaches the op's KernelOpInterface model (CustomKernelModel.cpp).
void registerKernelModel(mlir::DialectRegistry &registry);
} // namespace custom

#endif // CUSTOM_DIALECT_H
