//===- CollectiveKernels.cpp - spmd ops: collectives, device queries ------===//
//
// Every collective exchanges buffers through the Communicator and computes
// this device's result from its group's buffers, in group order (so every
// device of a group computes identical reductions). all_slice needs no
// exchange; sharding constraints are the identity.
//
//===----------------------------------------------------------------------===//

#include "runtime/KernelInterface.h"
#include "runtime/TensorOps.h"

#include "ir/SpmdOps.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::spmd;

namespace spmd::runtime {

namespace {
/// What every collective kernel needs: its group axes and a name.
struct CollectiveInfo {
  const ::spmd::DeviceMesh *mesh;
  ::spmd::AxisList axes;
  std::string name;
};
} // namespace

static llvm::Expected<CollectiveInfo> infoOf(CollectiveOpInterface op,
                                             KernelContext &ctx) {
  const ::spmd::DeviceMesh *mesh = ctx.exec().mesh(op.getMeshAttr().getValue());
  if (!mesh)
    return opError(op, "unknown mesh");
  CollectiveInfo info{mesh, {}, ""};
  for (auto axis : op.getAxesAttr().getAsRange<StringAttr>())
    info.axes.push_back(*mesh->axisIndex(axis.getValue()));
  llvm::raw_string_ostream os(info.name);
  os << "'" << op->getName() << "' at ";
  op->getLoc().print(os);
  return info;
}

namespace {
/// One device's part in one run of a collective.
struct Meeting {
  std::string key;
  const std::string &what;
  int64_t device;
  llvm::SmallVector<int64_t> group;
  int64_t position;
};
} // namespace

/// Builds a collective whose result is `run(communicator, meeting, input)`.
template <typename Run>
static llvm::Expected<Step> buildCollective(Operation *op, KernelContext &ctx,
                                            Run run) {
  llvm::Expected<CollectiveInfo> info =
      infoOf(llvm::cast<CollectiveOpInterface>(op), ctx);
  if (!info)
    return info.takeError();
  unsigned input = ctx.slot(op->getOperand(0));
  unsigned result = ctx.slot(op->getResult(0));
  auto shared = std::make_shared<CollectiveInfo>(std::move(*info));
  const void *identity = shared.get();
  return Step([=](Frame &frame, DeviceContext &context) -> llvm::Error {
    llvm::SmallVector<int64_t> group =
        shared->mesh->groupOf(context.device, shared->axes);
    int64_t position = llvm::find(group, context.device) - group.begin();
    Meeting meeting{std::to_string(reinterpret_cast<uintptr_t>(identity)) +
                        "#" + std::to_string(context.invocations[identity]++),
                    shared->name, context.device, std::move(group), position};
    llvm::Expected<TensorRef> out =
        run(*context.communicator, meeting, frame.slots[input].tensor);
    if (!out)
      return out.takeError();
    frame.slots[result] = RValue::ofTensor(std::move(*out));
    return llvm::Error::success();
  });
}

/// Builds a collective whose result is `compute(groupBuffers, position)`.
template <typename Compute>
static llvm::Expected<Step> buildExchange(Operation *op, KernelContext &ctx,
                                          Compute compute) {
  return buildCollective(
      op, ctx,
      [compute](Communicator &communicator, const Meeting &meeting,
                TensorRef local) -> llvm::Expected<TensorRef> {
        llvm::Expected<std::vector<TensorRef>> buffers =
            communicator.exchange(meeting.key, meeting.what, meeting.device,
                                  meeting.group, std::move(local));
        if (!buffers)
          return buffers.takeError();
        return compute(*buffers, meeting.position);
      });
}

static llvm::Expected<Step> buildAllGather(Operation *op, KernelContext &ctx) {
  int64_t dim = llvm::cast<AllGatherOp>(op).getGatherDim();
  return buildExchange(op, ctx, [dim](std::vector<TensorRef> &all, int64_t) {
    return concat(all, dim);
  });
}

static llvm::Expected<Step> buildAllReduce(Operation *op, KernelContext &ctx) {
  ::spmd::ReductionKind kind =
      toLibrary(llvm::cast<AllReduceOp>(op).getReduction());
  return buildCollective(op, ctx,
                         [kind](Communicator &communicator,
                                const Meeting &meeting, TensorRef local) {
                           return communicator.allReduce(
                               meeting.key, meeting.what, meeting.device,
                               meeting.group, std::move(local), kind);
                         });
}

static llvm::Expected<Step> buildReduceScatter(Operation *op,
                                               KernelContext &ctx) {
  auto scatter = llvm::cast<ReduceScatterOp>(op);
  ::spmd::ReductionKind kind = toLibrary(scatter.getReduction());
  int64_t dim = scatter.getScatterDim();
  int64_t size = scatter.getType().getDimSize(dim);
  // Only this member's piece of each buffer is reduced.
  return buildExchange(op, ctx,
                       [=](std::vector<TensorRef> &all, int64_t position) {
                         for (TensorRef &t : all)
                           t = piece(*t, dim, position, size);
                         return reduce(all, kind);
                       });
}

static llvm::Expected<Step> buildAllToAll(Operation *op, KernelContext &ctx) {
  auto a2a = llvm::cast<AllToAllOp>(op);
  int64_t split = a2a.getSplitDim(), concatDim = a2a.getConcatDim();
  // Piece j of every member's split dimension goes to member j, which
  // concatenates what it receives in group order.
  return buildExchange(op, ctx,
                       [=](std::vector<TensorRef> &all, int64_t position) {
                         int64_t size = all[0]->shape()[split] / all.size();
                         std::vector<TensorRef> received;
                         for (const TensorRef &t : all)
                           received.push_back(piece(*t, split, position, size));
                         return concat(received, concatDim);
                       });
}

static llvm::Expected<Step> buildPermute(Operation *op, KernelContext &ctx) {
  auto permute = llvm::cast<CollectivePermuteOp>(op);
  std::vector<int64_t> pairs(permute.getSourceTargetPairs().begin(),
                             permute.getSourceTargetPairs().end());
  return buildExchange(
      op, ctx, [pairs](std::vector<TensorRef> &all, int64_t position) {
        for (size_t i = 0; i + 1 < pairs.size(); i += 2)
          if (pairs[i + 1] == position)
            return all[pairs[i]];
        return std::make_shared<HostTensor>(
            all[0]->type(), std::vector<int64_t>(all[0]->shape()));
      });
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
  return Step([=, info = *info](Frame &frame, DeviceContext &context) {
    int64_t position = info.mesh->indexInGroup(context.device, info.axes);
    frame.slots[result] = RValue::ofTensor(
        piece(*frame.slots[input].tensor, dim, position, size));
    return llvm::Error::success();
  });
}

static llvm::Expected<Step> buildAxisIndex(Operation *op, KernelContext &ctx) {
  auto index = llvm::cast<AxisIndexOp>(op);
  const ::spmd::DeviceMesh *mesh = ctx.exec().mesh(index.getMesh());
  if (!mesh)
    return opError(op, "unknown mesh");
  ::spmd::AxisIndex axis = *mesh->axisIndex(index.getAxis());
  unsigned result = ctx.slot(index.getResult());
  return Step([=](Frame &frame, DeviceContext &context) {
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
        attachKernel<buildReduceScatter, ReduceScatterOp>(context);
        attachKernel<buildAllToAll, AllToAllOp>(context);
        attachKernel<buildPermute, CollectivePermuteOp>(context);
        attachKernel<buildAllSlice, AllSliceOp>(context);
        attachKernel<buildAxisIndex, AxisIndexOp>(context);
        attachKernel<buildIdentity, ShardingConstraintOp>(context);
      });
}

} // namespace spmd::runtime
