//===- ReshardEmitter.cpp - Collectives for a reshard plan ----------------===//

#include "partitioner/Partitioner.h"

#include "ir/LocalIR.h"

#include "ir/Namespaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::spmd;

/// `value` cut to its first `size` elements along `dim`.
static Value truncate(OpBuilder &b, Location loc, Value value, int64_t dim,
                      int64_t size) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(b.getIndexAttr(d == dim ? size : type.getDimSize(d)));
  return extractSlice(b, loc, nullptr, value, offsets, sizes, strides);
}

/// `state` as a sharding attribute (closed dimensions, no partial axes).
static ShardingAttr shardingOf(MLIRContext *context, const MeshInfo &mesh,
                               const ShardState &state) {
  std::vector<DimSharding> dims;
  for (const AxisList &axes : state.dims) {
    dims.emplace_back();
    for (AxisIndex axis : axes)
      dims.back().axes.push_back(mesh.mesh.axisName(axis).str());
  }
  return ShardingAttr::get(context,
                           TensorSharding(mesh.symbol.getValue().str(), dims));
}

Value mlir::spmd::emitReshard(OpBuilder &b, Location loc, Value local,
                              const MeshInfo &mesh,
                              ArrayRef<int64_t> globalShape,
                              const ShardState &from, const ReshardPlan &plan,
                              double minBytes) {
  MLIRContext *context = b.getContext();
  const ShardState *before = &from;
  for (const ReshardStep &step : plan.steps) {
    bool first = &step == &plan.steps.front();
    auto type = llvm::cast<RankedTensorType>(local.getType());
    SmallVector<StringRef> names;
    for (AxisIndex axis : step.axes)
      names.push_back(mesh.mesh.axisName(axis));
    ArrayAttr axes = b.getStrArrayAttr(names);
    int64_t n = mesh.mesh.groupSize(step.axes);
    SmallVector<int64_t> shape(type.getShape());
    auto resultType = [&] {
      return RankedTensorType::get(shape, type.getElementType());
    };
    switch (step.kind) {
    case CollectiveKind::AllGather:
      shape[step.dim] *= n;
      local = AllGatherOp::create(b, loc, resultType(), local, mesh.symbol,
                                  axes, b.getI64IntegerAttr(step.dim));
      break;
    case CollectiveKind::AllSlice:
      shape[step.dim] = llvm::divideCeil(shape[step.dim], n);
      local = AllSliceOp::create(b, loc, resultType(), local, mesh.symbol, axes,
                                 b.getI64IntegerAttr(step.dim));
      break;
    case CollectiveKind::AllToAll:
      shape[step.dim] /= n;
      shape[step.concatDim] *= n;
      local = AllToAllOp::create(b, loc, resultType(), local, mesh.symbol, axes,
                                 b.getI64IntegerAttr(step.dim),
                                 b.getI64IntegerAttr(step.concatDim));
      break;
    case CollectiveKind::AllReduce:
      local = AllReduceOp::create(b, loc, type, local, mesh.symbol, axes,
                                  reductionAttr(context, step.reduction));
      break;
    case CollectiveKind::ReduceScatter:
      shape[step.dim] = llvm::divideCeil(shape[step.dim], n);
      local = ReduceScatterOp::create(b, loc, resultType(), local, mesh.symbol,
                                      axes, b.getI64IntegerAttr(step.dim),
                                      reductionAttr(context, step.reduction));
      break;
    case CollectiveKind::CollectivePermute: {
      SmallVector<int64_t> pairs;
      for (auto [source, target] : permutationPairs(mesh.mesh, step))
        pairs.append({source, target});
      local = CollectivePermuteOp::create(b, loc, type, local, mesh.symbol,
                                          axes, b.getDenseI64ArrayAttr(pairs));
      break;
    }
    case CollectiveKind::Redistribute:
      local = RedistributeOp::create(
          b, loc, RankedTensorType::get(step.localShape, type.getElementType()),
          local, mesh.symbol, axes, shardingOf(context, mesh, *before),
          shardingOf(context, mesh, step.after),
          b.getDenseI64ArrayAttr(globalShape));
      break;
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce:
      llvm_unreachable("a reshard plan moves no value to or from one device");
    }
    before = &step.after;
    Operation *collective = local.getDefiningOp();
    // A dimension gathered whole is cut to its size: the padding goes.
    if (step.truncate) {
      assert((step.kind == CollectiveKind::AllGather ||
              step.kind == CollectiveKind::AllToAll) &&
             "only gathers truncate");
      local = truncate(b, loc, local,
                       step.kind == CollectiveKind::AllToAll ? step.concatDim
                                                             : step.dim,
                       step.truncate);
    }
    // Saturated: a count beyond int64 is never wrapped around.
    int64_t bytes =
        byteCount(minBytes).value_or(std::numeric_limits<int64_t>::max());
    collective->setAttr(SpmdDialect::kMinBytesAttrName,
                        b.getI64IntegerAttr(first ? bytes : 0));
  }
  return local;
}
