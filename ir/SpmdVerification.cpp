//===- SpmdVerification.cpp - Checks that need meshes and types -----------===//
//
// Shardings and collectives name a mesh symbol; these checks resolve it and
// compare axes, ranks and shapes. They report through the sharding and mesh
// libraries, so the rules have one home.
//
//===----------------------------------------------------------------------===//

#include "ir/SpmdOps.h"

#include "ir/Namespaces.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::spmd;

FailureOr<MeshAttr>
mlir::spmd::lookupMesh(Operation *from, FlatSymbolRefAttr meshRef,
                       function_ref<InFlightDiagnostic()> emitError,
                       SymbolTableCollection *tables) {
  Operation *symbol = tables
                          ? tables->lookupNearestSymbolFrom(from, meshRef)
                          : SymbolTable::lookupNearestSymbolFrom(from, meshRef);
  if (auto meshOp = llvm::dyn_cast_or_null<MeshOp>(symbol))
    return meshOp.getMesh();
  return emitError() << meshRef << " does not name a spmd.mesh";
}

LogicalResult
mlir::spmd::verifyShardingFor(ShardingAttr sharding, Type type, Operation *from,
                              function_ref<InFlightDiagnostic()> emitError,
                              SymbolTableCollection *tables) {
  // Scalars are rank 0: their only sharding is `[]`, possibly partial.
  int64_t rank = 0;
  if (auto tensorType = llvm::dyn_cast<RankedTensorType>(type))
    rank = tensorType.getRank();
  else if (llvm::isa<ShapedType>(type))
    return emitError() << "sharding applies to ranked tensors and scalars, not "
                       << type;
  FailureOr<MeshAttr> mesh =
      lookupMesh(from, sharding.getMesh(), emitError, tables);
  if (failed(mesh))
    return failure();
  TensorSharding value = sharding.toTensorSharding();
  if (llvm::Error err = value.verify(mesh->toMesh(), rank))
    return emitError() << "sharding " << value.str() << " does not fit " << type
                       << ": " << llvm::toString(std::move(err));
  return success();
}

LogicalResult mlir::spmd::verifyManualAxis(Operation *op,
                                           FlatSymbolRefAttr mesh,
                                           StringAttr axis) {
  auto region = op->getParentOfType<ManualComputationOp>();
  if (!region)
    return success();
  if (!llvm::is_contained(region.getManualAxes(), axis))
    return op->emitOpError()
           << "axis " << axis
           << " is not a manual axis of the enclosing spmd.manual_computation"
           << " (manual axes: " << region.getManualAxes() << ")";
  if (region.getMesh() && region.getMesh() != mesh)
    return op->emitOpError() << "is on " << mesh
                             << ", not on the mesh of the enclosing "
                                "spmd.manual_computation";
  return success();
}

LogicalResult mlir::spmd::verifyCollective(CollectiveOpInterface op,
                                           SymbolTableCollection &tables) {
  auto emitError = [&] { return op->emitOpError(); };
  FailureOr<MeshAttr> mesh =
      lookupMesh(op, op.getMeshAttr(), emitError, &tables);
  if (failed(mesh))
    return failure();
  DeviceMesh meshValue = mesh->toMesh();
  llvm::SmallSet<StringRef, 4> seen;
  int64_t groupSize = 1;
  for (auto axis : op.getAxesAttr().getAsRange<StringAttr>()) {
    std::optional<AxisIndex> index = meshValue.axisIndex(axis);
    if (!index)
      return emitError() << "mesh " << op.getMeshAttr() << " has no axis named "
                         << axis;
    if (!seen.insert(axis).second)
      return emitError() << "lists axis " << axis << " twice";
    if (failed(verifyManualAxis(op, op.getMeshAttr(), axis)))
      return failure();
    groupSize *= meshValue.axisSize(*index);
  }
  if (failed(op.verifyGroupShapes(groupSize)))
    return failure();
  return op.verifyOnMesh(meshValue, seen);
}
