//===- FunctionMesh.h - The mesh a function's values default to -*- C++ -*-===//
//
// A module may hold several meshes and functions on each. A value nobody
// gave a sharding is replicated on the mesh of its function: the mesh of
// the first sharding written on or in it.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_FUNCTIONMESH_H
#define SPMD_IR_FUNCTIONMESH_H

#include "ir/Namespaces.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::spmd {

/// The mesh of the first sharding on `function`'s arguments, results,
/// sharding constraints or (after propagation) op results; null if none.
FlatSymbolRefAttr firstShardingMesh(func::FuncOp function);

} // namespace mlir::spmd

#endif // SPMD_IR_FUNCTIONMESH_H
