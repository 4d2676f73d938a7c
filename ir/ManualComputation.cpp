//===- ManualComputation.cpp - spmd.manual_computation --------------------===//
//
// A region the user wrote per device over some mesh axes: its checks (local
// types, axes, counts) and its partitioning (operands brought to the
// boundary's layouts, the body partitioned over the free axes).
//
//===----------------------------------------------------------------------===//

#include "ir/SpmdOps.h"

#include "ir/Namespaces.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::spmd;

LogicalResult ManualComputationOp::verify() {
  Block &body = getBody().front();
  if (getInShardings().size() != getTensors().size())
    return emitOpError() << "has " << getInShardings().size()
                         << " in_shardings for " << getTensors().size()
                         << " operands";
  if (getOutShardings().size() != getNumResults())
    return emitOpError() << "has " << getOutShardings().size()
                         << " out_shardings for " << getNumResults()
                         << " results";
  if (body.getNumArguments() != getTensors().size())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments for " << getTensors().size()
                         << " operands";
  auto yield = body.empty() ? YieldOp() : llvm::dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError() << "body must end with spmd.yield";
  if (yield.getNumOperands() != getNumResults())
    return emitOpError() << "body yields " << yield.getNumOperands()
                         << " values for " << getNumResults() << " results";
  if (getInShardings().empty() && getOutShardings().empty())
    return emitOpError() << "needs an operand or a result to name its mesh";
  if ((*this)->getParentOfType<ManualComputationOp>())
    return emitOpError() << "inside another spmd.manual_computation is not "
                            "supported yet";
  // The body is per-device code: a callee would be partitioned as a global
  // function, and a constraint asks for a global layout.
  WalkResult walk = body.walk([&](Operation *op) {
    if (llvm::isa<CallOpInterface>(op)) {
      op->emitOpError() << "inside a spmd.manual_computation is not supported "
                           "yet (the callee would be partitioned as global "
                           "code)";
      return WalkResult::interrupt();
    }
    if (llvm::isa<ShardingConstraintOp>(op)) {
      op->emitOpError() << "inside a spmd.manual_computation: its body is "
                           "per-device code, whose values have no sharding";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

FlatSymbolRefAttr ManualComputationOp::getMesh() {
  for (ArrayAttr shardings : {getInShardings(), getOutShardings()})
    if (!shardings.empty())
      return llvm::cast<ShardingAttr>(shardings[0]).getMesh();
  return {};
}

/// `sharding`'s dimensions cut after their leading manual axes: the manual
/// part and the free rest.
static std::pair<::spmd::TensorSharding, ::spmd::TensorSharding>
splitAtManualAxes(ManualComputationOp op, ShardingAttr sharding) {
  ::spmd::TensorSharding full = sharding.toTensorSharding();
  llvm::SmallSet<StringRef, 4> manual;
  for (auto axis : op.getManualAxes().getAsRange<StringAttr>())
    manual.insert(axis.getValue());
  std::vector<::spmd::DimSharding> manualDims, freeDims;
  for (const ::spmd::DimSharding &dim : full.dims) {
    size_t kept = 0;
    while (kept < dim.axes.size() && manual.contains(dim.axes[kept]))
      ++kept;
    manualDims.emplace_back().axes.assign(dim.axes.begin(),
                                          dim.axes.begin() + kept);
    ::spmd::DimSharding &free = freeDims.emplace_back(dim);
    free.axes.erase(free.axes.begin(), free.axes.begin() + kept);
  }
  return {::spmd::TensorSharding(full.meshName, std::move(manualDims)),
          ::spmd::TensorSharding(full.meshName, std::move(freeDims))};
}

::spmd::TensorSharding ManualComputationOp::manualPart(ShardingAttr sharding) {
  return splitAtManualAxes(*this, sharding).first;
}

::spmd::TensorSharding ManualComputationOp::freePart(ShardingAttr sharding) {
  return splitAtManualAxes(*this, sharding).second;
}

/// Checks `sharding` of a boundary tensor of global type `global` whose
/// local type in the body is `local`: it fits, is on the region's mesh, is
/// not pending a reduction, lists its manual axes first in each dimension,
/// and those divide the dimension into `local`'s size.
static LogicalResult checkBoundary(ManualComputationOp op,
                                   ShardingAttr sharding, Type global,
                                   Type local, const Twine &what,
                                   SymbolTableCollection &tables) {
  auto emitError = [&] { return op.emitOpError() << what << ": "; };
  if (sharding.getMesh() != op.getMesh())
    return emitError() << "sharding is on " << sharding.getMesh()
                       << ", the region's mesh is " << op.getMesh();
  if (auto tensor = llvm::dyn_cast<RankedTensorType>(global);
      !tensor || !tensor.hasStaticShape())
    return emitError() << "needs a static shape, not " << global;
  if (failed(verifyShardingFor(sharding, global, op, emitError, &tables)))
    return failure();
  if (!sharding.getPartial().empty())
    return emitError() << "sharding may not be partial";
  // verifyShardingFor found the mesh.
  ::spmd::DeviceMesh mesh =
      lookupMesh(op, sharding.getMesh(), emitError, &tables)->toMesh();
  ::spmd::TensorSharding manual = op.manualPart(sharding);
  ::spmd::TensorSharding full = sharding.toTensorSharding();
  auto globalType = llvm::cast<RankedTensorType>(global);
  SmallVector<int64_t> expected;
  for (auto [d, dim] : llvm::enumerate(full.dims)) {
    const std::vector<std::string> &kept = manual.dims[d].axes;
    for (size_t i = kept.size(); i < dim.axes.size(); ++i)
      if (llvm::is_contained(op.getManualAxes().getAsValueRange<StringAttr>(),
                             dim.axes[i]))
        return emitError() << "dimension " << d << " lists manual axis \""
                           << dim.axes[i] << "\" after free axis \""
                           << dim.axes[kept.size()]
                           << "\" (manual axes come first)";
    int64_t devices = 1;
    for (const std::string &axis : kept)
      devices *= mesh.axisSize(*mesh.axisIndex(axis));
    int64_t size = globalType.getDimSize(d);
    if (size % devices != 0)
      return emitError() << "dimension " << d << " (" << size
                         << ") is not divisible by its manual axes' " << devices
                         << " devices";
    expected.push_back(size / devices);
  }
  auto localType = RankedTensorType::get(expected, globalType.getElementType());
  if (local != localType)
    return emitError() << "local type " << local << " does not match "
                       << localType << ", the type of " << global
                       << " split by " << ::spmd::TensorSharding(manual).str();
  return success();
}

LogicalResult
ManualComputationOp::verifySymbolUses(SymbolTableCollection &tables) {
  Block &body = getBody().front();
  if (!getMesh() || body.empty() || !llvm::isa<YieldOp>(body.back()))
    return success(); // verify() explains.
  auto emitError = [&] { return emitOpError(); };
  FailureOr<MeshAttr> meshAttr =
      lookupMesh(*this, getMesh(), emitError, &tables);
  if (failed(meshAttr))
    return failure();
  ::spmd::DeviceMesh mesh = meshAttr->toMesh();
  llvm::SmallSet<StringRef, 4> seen;
  for (auto axis : getManualAxes().getAsRange<StringAttr>()) {
    if (!mesh.axisIndex(axis))
      return emitOpError() << "manual axis " << axis << " is not an axis of "
                           << getMesh();
    if (!seen.insert(axis).second)
      return emitOpError() << "lists manual axis " << axis << " twice";
  }
  for (auto [i, operand, sharding, arg] :
       llvm::enumerate(getTensors(), getInShardings(), body.getArguments()))
    if (failed(checkBoundary(*this, llvm::cast<ShardingAttr>(sharding),
                             operand.getType(), arg.getType(),
                             "operand " + Twine(i), tables)))
      return failure();
  Operation *yield = body.getTerminator();
  for (auto [i, result, sharding, yielded] :
       llvm::enumerate(getResults(), getOutShardings(), yield->getOperands()))
    if (failed(checkBoundary(*this, llvm::cast<ShardingAttr>(sharding),
                             result.getType(), yielded.getType(),
                             "result " + Twine(i), tables)))
      return failure();
  return success();
}

/// Propagation treats the boundary as written shardings; the op itself is
/// not split by a rule.
std::optional<OpShardingRule> ManualComputationOp::getShardingRule() {
  return std::nullopt;
}

/// Whether `state` splits every dimension of `shape` into equal blocks.
static bool splitsEvenly(const ::spmd::DeviceMesh &mesh,
                         ArrayRef<int64_t> shape, const ShardState &state) {
  for (auto [size, axes] : llvm::zip_equal(shape, state.dims)) {
    int64_t devices = 1;
    for (AxisIndex axis : axes)
      devices *= mesh.axisSize(axis);
    if (size % devices != 0)
      return false;
  }
  return true;
}

/// The layouts of a boundary tensor: outside, of the global tensor, and
/// inside, of the body's local one over the free axes.
struct BoundaryLayouts {
  ShardState outside, inside;
};

/// Where the free axes split the body's tensor of `localType` evenly, a
/// device's block of the whole sharding is its block of its manual piece,
/// so the boundary moves nothing. Elsewhere (padded blocks would not line
/// up) the manual piece crosses it whole over the free axes.
static BoundaryLayouts boundaryLayouts(ManualComputationOp op,
                                       const ::spmd::DeviceMesh &mesh,
                                       Attribute attr, Type localType) {
  auto sharding = llvm::cast<ShardingAttr>(attr);
  // verifySymbolUses checked the shardings against this mesh.
  auto stateOf = [&](const ::spmd::TensorSharding &part) {
    return llvm::cantFail(toState(mesh, part));
  };
  ShardState inside = stateOf(op.freePart(sharding));
  if (splitsEvenly(mesh, llvm::cast<RankedTensorType>(localType).getShape(),
                   inside))
    return {stateOf(sharding.toTensorSharding()), inside};
  ShardState whole;
  whole.dims.resize(inside.dims.size());
  return {stateOf(op.manualPart(sharding)), whole};
}

/// The operands brought to the boundary's layouts, the body partitioned
/// over the free axes like the code around it (its collectives, on manual
/// axes, split as elementwise ops there), the yields brought back.
LogicalResult ManualComputationOp::partition(PartitionContext &context) {
  FailureOr<const MeshInfo *> mesh = context.meshFor(*this, getMesh());
  if (failed(mesh))
    return failure();
  Block &body = getBody().front();
  for (auto [operand, sharding, arg] :
       llvm::zip_equal(getTensors(), getInShardings(), body.getArguments())) {
    BoundaryLayouts layouts =
        boundaryLayouts(*this, (*mesh)->mesh, sharding, arg.getType());
    FailureOr<Value> local = context.get(*this, operand, layouts.outside);
    if (failed(local))
      return failure();
    context.set(arg, {*local, *mesh, layouts.inside});
  }
  if (failed(context.partitionBlock(body)))
    return failure();
  Operation *yield = body.getTerminator();
  for (auto [result, sharding, yielded] :
       llvm::zip_equal(getResults(), getOutShardings(), yield->getOperands())) {
    BoundaryLayouts layouts =
        boundaryLayouts(*this, (*mesh)->mesh, sharding, yielded.getType());
    FailureOr<Value> local = context.get(yield, yielded, layouts.inside);
    if (failed(local))
      return failure();
    context.set(result, {*local, *mesh, layouts.outside});
  }
  return success();
}
