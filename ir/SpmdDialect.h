//===- SpmdDialect.h - The spmd dialect and its attributes ------*- C++ -*-===//

#ifndef SPMD_IR_SPMDDIALECT_H
#define SPMD_IR_SPMDDIALECT_H

#include "ir/Namespaces.h"
#include "mesh/DeviceMesh.h"
#include "sharding/TensorSharding.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallSet.h"

#include "ir/SpmdDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "ir/SpmdAttrs.h.inc"

#include "ir/SpmdInterfaces.h.inc"

namespace mlir::spmd {

/// A collective's reduction attribute: the kind's number in an i32.
IntegerAttr reductionAttr(MLIRContext *context, ReductionKind kind);
/// Whether `attr` is such an attribute: a ReductionKind's number.
bool isCollectiveReductionAttr(Attribute attr);

/// The mesh that `meshRef` names as seen from `from`, or an error through
/// `emitError`. `tables` caches symbol tables when given.
FailureOr<MeshAttr> lookupMesh(Operation *from, FlatSymbolRefAttr meshRef,
                               function_ref<InFlightDiagnostic()> emitError,
                               SymbolTableCollection *tables = nullptr);

/// Checks that `sharding` fits a value of `type`: a ranked tensor whose rank
/// matches, on an existing mesh that has every axis named. Errors go through
/// `emitError`; `from` is where symbol lookup starts.
LogicalResult verifyShardingFor(ShardingAttr sharding, Type type,
                                Operation *from,
                                function_ref<InFlightDiagnostic()> emitError,
                                SymbolTableCollection *tables = nullptr);

/// Inside a spmd.manual_computation, `op` (a collective or axis_index) may
/// name only the region's manual axes, on its mesh.
LogicalResult verifyManualAxis(Operation *op, FlatSymbolRefAttr mesh,
                               StringAttr axis);

/// Shared verification of collectives: mesh and axes exist, no axis is
/// listed twice, shapes match the group size.
LogicalResult verifyCollective(CollectiveOpInterface op,
                               SymbolTableCollection &tables);

} // namespace mlir::spmd

#endif // SPMD_IR_SPMDDIALECT_H
