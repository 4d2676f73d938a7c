//===- TensorModels.cpp - Tensor creation, casts, gathers, element access -===//
//
// tensor.empty and tensor.splat make tensors from scalars: any layout is
// made in place. tensor.from_elements lists its elements in order, so it is
// made whole. One element at a (possibly dynamic) global position of a
// split tensor lives on the devices whose shards hold that position:
// reading it (tensor.extract) moves that one element: every device reads
// its shard at the clamped local position, keeps it only if it holds the
// position (the reduction's identity otherwise), and one all-reduce of a
// single element over the split (and pending) axes gives it to all.
// Writing it (tensor.insert) changes only the holders' shards; nothing
// moves.
//
//===----------------------------------------------------------------------===//

#include "ir/LocalIR.h"
#include "ir/Namespaces.h"
#include "ir/ShardingModels.h"
#include "ir/SpmdOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::spmd;

namespace {
/// A global position in a tensor of `state`, as this device sees it.
struct LocalPosition {
  SmallVector<Value> indices; // local, clamped into the shard
  Value holds;                // whether this device's shard holds it
};
} // namespace

static LocalPosition localPosition(OpBuilder &b, Location loc,
                                   const MeshInfo &mesh,
                                   const ShardState &state,
                                   RankedTensorType global,
                                   ValueRange indices) {
  LocalPosition position;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [d, index] : llvm::enumerate(indices)) {
    const AxisList &axes = state.dims[d];
    if (axes.empty()) {
      position.indices.push_back(index);
      continue;
    }
    int64_t shard = llvm::divideCeil(global.getDimSize(d),
                                     mesh.mesh.groupSize(axes));
    Value local = arith::SubIOp::create(
        b, loc, index, shardOffset(b, loc, mesh, axes, shard));
    Value above =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, local, zero);
    Value below = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt, local,
        arith::ConstantIndexOp::create(b, loc, shard));
    Value inside = arith::AndIOp::create(b, loc, above, below);
    position.indices.push_back(
        arith::SelectOp::create(b, loc, inside, local, zero));
    position.holds = position.holds ? arith::AndIOp::create(
                                          b, loc, position.holds, inside)
                                    : inside;
  }
  return position;
}

static SmallVector<Value> currentAll(PartitionContext &context,
                                     ValueRange globals) {
  SmallVector<Value> locals;
  for (Value global : globals)
    locals.push_back(context.current(global));
  return locals;
}

/// A rule whose result tensor's dimensions are free factors of `kind`.
static OpShardingRule sourceRule(Operation *op, FactorKind kind) {
  OpShardingRule rule;
  rules::addScalars(rule, op->getNumOperands());
  rule.addTensor(rules::freeDims(
      rule, llvm::cast<RankedTensorType>(op->getResult(0).getType()).getShape(),
      kind));
  return rule;
}

namespace {
/// tensor.empty and tensor.splat: made in any layout where they are used
/// (Partitioner::rematerialize).
template <typename OpTy>
struct FreeSourceModel
    : ShardingOpInterface::ExternalModel<FreeSourceModel<OpTy>, OpTy> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    return sourceRule(op, FactorKind::Parallel);
  }
};

/// tensor.from_elements: its elements are listed in order, so it is whole.
struct FromElementsModel
    : ShardingOpInterface::ExternalModel<FromElementsModel,
                                         tensor::FromElementsOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    return sourceRule(op, FactorKind::NeedReplication);
  }
};

/// tensor.cast: static shapes, so the same dimensions.
struct CastModel
    : ShardingOpInterface::ExternalModel<CastModel, tensor::CastOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    return OpShardingRule(
        ShardingRule::identity(*rules::staticShape(op->getResult(0)), 2));
  }
};

/// tensor.gather: the result is the indices' batch dimensions, then the
/// source's dimensions (the gathered ones of size 1, or dropped when rank
/// reduced). Batch and kept source dimensions are parallel; gathered
/// dimensions and the coordinate dimension are read at positions from
/// data, so they stay whole.
struct GatherModel
    : ShardingOpInterface::ExternalModel<GatherModel, tensor::GatherOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    auto gather = llvm::cast<tensor::GatherOp>(op);
    ArrayRef<int64_t> source = gather.getSource().getType().getShape();
    ArrayRef<int64_t> indices = gather.getIndices().getType().getShape();
    ArrayRef<int64_t> gathered = gather.getGatherDims();
    bool dropped =
        gather.getResult().getType().getRank() ==
        int64_t(indices.size() - 1 + source.size() - gathered.size());
    OpShardingRule rule;
    TensorFactors sourceDims, indexDims, resultDims;
    for (int64_t size : indices.drop_back()) {
      unsigned f = rule.addFactor(size, FactorKind::Parallel);
      indexDims.push_back({f});
      resultDims.push_back({f});
    }
    indexDims.push_back(
        {rule.addFactor(indices.back(), FactorKind::NeedReplication)});
    for (auto [d, size] : llvm::enumerate(source)) {
      if (llvm::is_contained(gathered, int64_t(d))) {
        sourceDims.push_back(
            {rule.addFactor(size, FactorKind::NeedReplication)});
        if (!dropped)
          resultDims.push_back({});
        continue;
      }
      unsigned f = rule.addFactor(size, FactorKind::Parallel);
      sourceDims.push_back({f});
      resultDims.push_back({f});
    }
    rule.addTensor(sourceDims);
    rule.addTensor(indexDims);
    rule.addTensor(resultDims);
    return rule;
  }
};

/// tensor.extract: for propagation, the position is data, so the tensor's
/// dimensions are not related to anything; it partitions itself.
struct ExtractModel
    : ShardingOpInterface::ExternalModel<ExtractModel, tensor::ExtractOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    auto extract = llvm::cast<tensor::ExtractOp>(op);
    OpShardingRule rule;
    rule.addTensor(rules::freeDims(rule,
                                   extract.getTensor().getType().getShape(),
                                   FactorKind::NeedReplication));
    rules::addScalars(rule, extract.getIndices().size() + 1);
    return rule;
  }

  LogicalResult partition(Operation *op, PartitionContext &context) const {
    auto extract = llvm::cast<tensor::ExtractOp>(op);
    const LocalValue &source = context.lookup(extract.getTensor());
    const ShardState &state = source.state;
    AxisList axes;
    for (const AxisList &dim : state.dims)
      axes.append(dim.begin(), dim.end());
    axes.append(state.partial.begin(), state.partial.end());
    OpBuilder &b = context.builder();
    Location loc = op->getLoc();
    SmallVector<Value> indices = currentAll(context, extract.getIndices());
    if (axes.empty()) {
      context.mapScalar(extract.getResult(), tensor::ExtractOp::create(
                                                 b, loc, source.local, indices));
      return success();
    }
    const MeshInfo &mesh = *source.mesh;
    LocalPosition position = localPosition(
        b, loc, mesh, state, extract.getTensor().getType(), indices);
    Value element =
        tensor::ExtractOp::create(b, loc, source.local, position.indices);
    ReductionKind kind =
        state.partial.empty() ? ReductionKind::Sum : state.reduction;
    if (position.holds)
      element = arith::SelectOp::create(
          b, loc, position.holds, element,
          arith::ConstantOp::create(b, loc,
                                    identityOf(b, kind, element.getType())));
    auto single = RankedTensorType::get({1}, element.getType());
    Value packed = tensor::FromElementsOp::create(b, loc, single, element);
    SmallVector<StringRef> names;
    for (AxisIndex axis : axes)
      names.push_back(mesh.mesh.axisName(axis));
    Value reduced = AllReduceOp::create(b, loc, single, packed, mesh.symbol,
                                        b.getStrArrayAttr(names),
                                        reductionAttr(b.getContext(), kind));
    context.mapScalar(
        extract.getResult(),
        tensor::ExtractOp::create(
            b, loc, reduced,
            ValueRange{arith::ConstantIndexOp::create(b, loc, 0)}));
    return success();
  }
};

/// tensor.insert: the destination and the result are laid out alike; it
/// partitions itself.
struct InsertModel
    : ShardingOpInterface::ExternalModel<InsertModel, tensor::InsertOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    auto insert = llvm::cast<tensor::InsertOp>(op);
    OpShardingRule rule;
    rule.addTensor({}); // the scalar
    TensorFactors dims =
        rules::freeDims(rule, insert.getDest().getType().getShape());
    rule.addTensor(dims);
    rules::addScalars(rule, insert.getIndices().size());
    rule.addTensor(dims);
    return rule;
  }

  LogicalResult partition(Operation *op, PartitionContext &context) const {
    auto insert = llvm::cast<tensor::InsertOp>(op);
    const LocalValue &dest = context.lookup(insert.getDest());
    // A pending reduction is done first: the element replaces a whole value.
    ShardState state = dest.state;
    state.partial.clear();
    const MeshInfo *mesh = dest.mesh;
    FailureOr<Value> local = context.get(op, insert.getDest(), state);
    if (failed(local))
      return failure();
    OpBuilder &b = context.builder();
    Location loc = op->getLoc();
    LocalPosition position =
        localPosition(b, loc, *mesh, state, insert.getDest().getType(),
                      currentAll(context, insert.getIndices()));
    Value element = context.current(insert.getScalar());
    if (position.holds)
      element = arith::SelectOp::create(
          b, loc, position.holds, element,
          tensor::ExtractOp::create(b, loc, *local, position.indices));
    Value inserted =
        tensor::InsertOp::create(b, loc, element, *local, position.indices);
    context.set(insert.getResult(), {inserted, mesh, state});
    return success();
  }
};
} // namespace

void mlir::spmd::registerTensorModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    tensor::EmptyOp::attachInterface<FreeSourceModel<tensor::EmptyOp>>(
        *context);
    tensor::SplatOp::attachInterface<FreeSourceModel<tensor::SplatOp>>(
        *context);
    tensor::FromElementsOp::attachInterface<FromElementsModel>(*context);
    tensor::CastOp::attachInterface<CastModel>(*context);
    tensor::GatherOp::attachInterface<GatherModel>(*context);
    tensor::ExtractOp::attachInterface<ExtractModel>(*context);
    tensor::InsertOp::attachInterface<InsertModel>(*context);
  });
}
