//===- CollectiveKernels.cpp - spmd ops: collectives, device queries ------===//
//
// Every collective is described to the Communicator, which moves what the
// group needs (inside the process, or through MPI) and computes each
// device's result; reductions combine buffers in group order, so every
// device of a group computes identical values. all_slice needs no
// exchange; sharding constraints are the identity.
//
//===----------------------------------------------------------------------===//

#include "ir/Namespaces.h"
#include "runtime/exec/TensorOps.h"
#include "runtime/kernels/KernelInterface.h"

#include "ir/Locations.h"
#include "ir/SpmdOps.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::spmd;

namespace spmd::runtime {

/// Fails unless `device` is one of `mesh`'s: an op on a smaller mesh than
/// the program runs on.
static llvm::Error onMesh(const DeviceMesh &mesh, int64_t device,
                          const std::string &what) {
  if (device < mesh.numDevices())
    return llvm::Error::success();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      what + " is on a mesh of " + std::to_string(mesh.numDevices()) +
          " devices but runs on device " + std::to_string(device));
}

namespace {
/// What every collective kernel needs: its group axes and a name.
struct CollectiveInfo {
  const DeviceMesh *mesh;
  AxisList axes;
  std::string name;
};
} // namespace

static llvm::Expected<CollectiveInfo> infoOf(CollectiveOpInterface op,
                                             KernelContext &ctx) {
  const DeviceMesh *mesh = ctx.exec().mesh(op.getMeshAttr().getValue());
  if (!mesh)
    return opError(op, "unknown mesh");
  CollectiveInfo info{mesh, {}, ""};
  for (auto axis : op.getAxesAttr().getAsRange<StringAttr>())
    info.axes.push_back(*mesh->axisIndex(axis.getValue()));
  llvm::raw_string_ostream os(info.name);
  os << "'" << op->getName() << "' at " << mlir::spmd::placeOf(op->getLoc());
  return info;
}

static CollectiveKind kindOf(Operation *op) {
  return llvm::cast<CollectiveOpInterface>(op).getCollectiveKind();
}

/// Builds the step of a collective whose kind and parameters
/// `collective` gives.
static llvm::Expected<Step> buildCollective(Operation *op, KernelContext &ctx,
                                            Collective collective) {
  llvm::Expected<CollectiveInfo> info =
      infoOf(llvm::cast<CollectiveOpInterface>(op), ctx);
  if (!info)
    return info.takeError();
  unsigned input = ctx.slot(op->getOperand(0));
  unsigned result = ctx.slot(op->getResult(0));
  auto shared = std::make_shared<CollectiveInfo>(std::move(*info));
  const void *identity = shared.get();
  return Step([=](Frame &frame, DeviceContext &context) -> llvm::Error {
    if (llvm::Error err = onMesh(*shared->mesh, context.device, shared->name))
      return err;
    llvm::SmallVector<int64_t> group =
        shared->mesh->groupOf(context.device, shared->axes);
    CollectiveCall call{std::to_string(reinterpret_cast<uintptr_t>(identity)) +
                            "#" +
                            std::to_string(context.invocations[identity]++),
                        shared->name,
                        context.device,
                        group,
                        *shared->mesh,
                        shared->axes};
    llvm::Expected<TensorRef> out = context.communicator->run(
        call, collective, frame.slots[input].tensor);
    if (!out)
      return out.takeError();
    frame.slots[result] = RValue::ofTensor(std::move(*out));
    return llvm::Error::success();
  });
}

static llvm::Expected<Step> buildAllGather(Operation *op, KernelContext &ctx) {
  Collective collective{kindOf(op)};
  collective.dim = llvm::cast<AllGatherOp>(op).getGatherDim();
  return buildCollective(op, ctx, std::move(collective));
}

static llvm::Expected<Step> buildAllReduce(Operation *op, KernelContext &ctx) {
  Collective collective{kindOf(op)};
  collective.reduction = llvm::cast<AllReduceOp>(op).getReduction();
  return buildCollective(op, ctx, std::move(collective));
}

static llvm::Expected<Step> buildBroadcast(Operation *op, KernelContext &ctx) {
  Collective collective{kindOf(op)};
  collective.root = llvm::cast<BroadcastOp>(op).getRoot();
  return buildCollective(op, ctx, std::move(collective));
}

static llvm::Expected<Step> buildReduce(Operation *op, KernelContext &ctx) {
  auto reduce = llvm::cast<ReduceOp>(op);
  Collective collective{kindOf(op)};
  collective.root = reduce.getRoot();
  collective.reduction = reduce.getReduction();
  return buildCollective(op, ctx, std::move(collective));
}

static llvm::Expected<Step> buildReduceScatter(Operation *op,
                                               KernelContext &ctx) {
  auto scatter = llvm::cast<ReduceScatterOp>(op);
  Collective collective{kindOf(op)};
  collective.reduction = scatter.getReduction();
  collective.dim = scatter.getScatterDim();
  collective.resultDimSize = scatter.getType().getDimSize(collective.dim);
  return buildCollective(op, ctx, std::move(collective));
}

static llvm::Expected<Step> buildAllToAll(Operation *op, KernelContext &ctx) {
  auto a2a = llvm::cast<AllToAllOp>(op);
  Collective collective{kindOf(op)};
  collective.dim = a2a.getSplitDim();
  collective.concatDim = a2a.getConcatDim();
  return buildCollective(op, ctx, std::move(collective));
}

static llvm::Expected<Step> buildPermute(Operation *op, KernelContext &ctx) {
  auto permute = llvm::cast<CollectivePermuteOp>(op);
  Collective collective{kindOf(op)};
  collective.pairs.assign(permute.getSourceTargetPairs().begin(),
                          permute.getSourceTargetPairs().end());
  return buildCollective(op, ctx, std::move(collective));
}

static llvm::Expected<Step> buildRedistribute(Operation *op,
                                              KernelContext &ctx) {
  auto redistribute = llvm::cast<RedistributeOp>(op);
  const DeviceMesh *mesh = ctx.exec().mesh(redistribute.getMesh());
  if (!mesh)
    return opError(op, "unknown mesh");
  llvm::Expected<ShardState> from =
      toState(*mesh, redistribute.getFrom().toTensorSharding());
  llvm::Expected<ShardState> to =
      toState(*mesh, redistribute.getTo().toTensorSharding());
  if (!from || !to) {
    llvm::consumeError(from.takeError());
    llvm::consumeError(to.takeError());
    return opError(op, "layouts not on the mesh");
  }
  AxisList axes;
  llvm::SmallVector<int64_t> sizes;
  for (auto axis : redistribute.getAxes().getAsRange<StringAttr>()) {
    axes.push_back(*mesh->axisIndex(axis.getValue()));
    sizes.push_back(mesh->axisSize(axes.back()));
  }
  ArrayRef<int64_t> shape = redistribute.getGlobalShape();
  Collective collective{kindOf(op)};
  collective.resultShape.assign(redistribute.getType().getShape().begin(),
                                redistribute.getType().getShape().end());
  // Blocks depend only on the coordinates along the group's axes, which
  // include every axis either layout names.
  llvm::SmallVector<int64_t> coords(mesh->rank(), 0);
  for (int64_t p = 0, e = product(sizes); p < e; ++p) {
    for (auto [axis, c] : llvm::zip_equal(axes, delinearize(p, sizes)))
      coords[axis] = c;
    collective.sourceBlocks.push_back(blockBounds(*mesh, shape, *from, coords));
    collective.targetBlocks.push_back(blockBounds(*mesh, shape, *to, coords));
  }
  return buildCollective(op, ctx, std::move(collective));
}

static llvm::Expected<Step> buildAllSlice(Operation *op, KernelContext &ctx) {
  auto slice = llvm::cast<AllSliceOp>(op);
  llvm::Expected<CollectiveInfo> info =
      infoOf(llvm::cast<CollectiveOpInterface>(op), ctx);
  if (!info)
    return info.takeError();
  int64_t dim = slice.getSliceDim();
  int64_t size = slice.getType().getDimSize(dim);
  unsigned input = ctx.slot(slice.getInput());
  unsigned result = ctx.slot(slice.getResult());
  return Step([=, info = *info](Frame &frame,
                                DeviceContext &context) -> llvm::Error {
    if (llvm::Error err = onMesh(*info.mesh, context.device, info.name))
      return err;
    int64_t position = info.mesh->indexInGroup(context.device, info.axes);
    frame.slots[result] = RValue::ofTensor(
        piece(*frame.slots[input].tensor, dim, position, size));
    return llvm::Error::success();
  });
}

static llvm::Expected<Step> buildAxisIndex(Operation *op, KernelContext &ctx) {
  auto index = llvm::cast<AxisIndexOp>(op);
  const DeviceMesh *mesh = ctx.exec().mesh(index.getMesh());
  if (!mesh)
    return opError(op, "unknown mesh");
  AxisIndex axis = *mesh->axisIndex(index.getAxis());
  unsigned result = ctx.slot(index.getResult());
  return Step([=](Frame &frame, DeviceContext &context) -> llvm::Error {
    if (llvm::Error err =
            onMesh(*mesh, context.device, "'spmd.axis_index'"))
      return err;
    frame.slots[result] = RValue::ofInt(mesh->coordsOf(context.device)[axis]);
    return llvm::Error::success();
  });
}

/// Annotations are the identity on the global program.
static llvm::Expected<Step> buildIdentity(Operation *op, KernelContext &ctx) {
  unsigned input = ctx.slot(op->getOperand(0));
  unsigned result = ctx.slot(op->getResult(0));
  return Step([=](Frame &frame, DeviceContext &) {
    frame.slots[result] = frame.slots[input];
    return llvm::Error::success();
  });
}

void registerCollectiveKernels(DialectRegistry &registry) {
  registry.addExtension(
      +[](MLIRContext *context, mlir::spmd::SpmdDialect *) {
        attachKernel<buildAllGather, AllGatherOp>(context);
        attachKernel<buildAllReduce, AllReduceOp>(context);
        attachKernel<buildBroadcast, BroadcastOp>(context);
        attachKernel<buildReduce, ReduceOp>(context);
        attachKernel<buildReduceScatter, ReduceScatterOp>(context);
        attachKernel<buildAllToAll, AllToAllOp>(context);
        attachKernel<buildPermute, CollectivePermuteOp>(context);
        attachKernel<buildRedistribute, RedistributeOp>(context);
        attachKernel<buildAllSlice, AllSliceOp>(context);
        attachKernel<buildAxisIndex, AxisIndexOp>(context);
        attachKernel<buildIdentity, ShardingConstraintOp>(context);
      });
}

} // namespace spmd::runtime
