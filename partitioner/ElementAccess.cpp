//===- ElementAccess.cpp - tensor.extract and tensor.insert of one element -===//
//
// One element at a (possibly dynamic) global position of a split tensor
// lives on the devices whose shards hold that position. Reading it moves
// that one element: every device reads its shard at the clamped local
// position, keeps it only if it holds the position (the reduction's
// identity otherwise), and one all-reduce of a single element over the
// split (and pending) axes gives it to all. Writing it changes only the
// holders' shards; nothing moves.
//
//===----------------------------------------------------------------------===//

#include "partitioner/OpPartitioners.h"

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
                                   const ::spmd::ShardState &state,
                                   RankedTensorType global,
                                   ValueRange indices) {
  LocalPosition position;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [d, index] : llvm::enumerate(indices)) {
    const ::spmd::AxisList &axes = state.dims[d];
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

static LogicalResult partitionExtract(Operation *op, Partitioner &p) {
  auto extract = llvm::cast<tensor::ExtractOp>(op);
  const LocalValue &source = p.lookup(extract.getTensor());
  const ::spmd::ShardState &state = source.state;
  ::spmd::AxisList axes;
  for (const ::spmd::AxisList &dim : state.dims)
    axes.append(dim.begin(), dim.end());
  axes.append(state.partial.begin(), state.partial.end());
  OpBuilder &b = p.builder();
  Location loc = op->getLoc();
  SmallVector<Value> indices;
  for (Value index : extract.getIndices())
    indices.push_back(p.current(index));
  if (axes.empty()) {
    p.scalars().map(extract.getResult(),
                    tensor::ExtractOp::create(b, loc, source.local, indices));
    return success();
  }
  const MeshInfo &mesh = *source.mesh;
  LocalPosition position = localPosition(
      b, loc, mesh, state, extract.getTensor().getType(), indices);
  Value element =
      tensor::ExtractOp::create(b, loc, source.local, position.indices);
  ::spmd::ReductionKind kind = state.reduction;
  if (state.partial.empty())
    kind = ::spmd::ReductionKind::Sum;
  if (position.holds)
    element = arith::SelectOp::create(
        b, loc, position.holds, element,
        arith::ConstantOp::create(b, loc,
                                  identityOf(b, kind, element.getType())));
  auto single = RankedTensorType::get({1}, element.getType());
  Value packed = tensor::FromElementsOp::create(b, loc, single, element);
  SmallVector<StringRef> names;
  for (::spmd::AxisIndex axis : axes)
    names.push_back(mesh.mesh.axisName(axis));
  Value reduced = AllReduceOp::create(
      b, loc, single, packed, mesh.symbol, b.getStrArrayAttr(names),
      ReductionKindAttr::get(b.getContext(), fromLibrary(kind)));
  p.scalars().map(extract.getResult(),
                  tensor::ExtractOp::create(
                      b, loc, reduced,
                      ValueRange{arith::ConstantIndexOp::create(b, loc, 0)}));
  return success();
}

static LogicalResult partitionInsert(Operation *op, Partitioner &p) {
  auto insert = llvm::cast<tensor::InsertOp>(op);
  const LocalValue &dest = p.lookup(insert.getDest());
  // A pending reduction is done first: the element replaces a whole value.
  ::spmd::ShardState state = dest.state;
  state.partial.clear();
  FailureOr<Value> local = p.get(op, insert.getDest(), state);
  if (failed(local))
    return failure();
  OpBuilder &b = p.builder();
  Location loc = op->getLoc();
  SmallVector<Value> indices;
  for (Value index : insert.getIndices())
    indices.push_back(p.current(index));
  LocalPosition position = localPosition(b, loc, *dest.mesh, state,
                                         insert.getDest().getType(), indices);
  Value element = p.current(insert.getScalar());
  if (position.holds)
    element = arith::SelectOp::create(
        b, loc, position.holds, element,
        tensor::ExtractOp::create(b, loc, *local, position.indices));
  Value inserted =
      tensor::InsertOp::create(b, loc, element, *local, position.indices);
  p.set(insert.getResult(), {inserted, dest.mesh, state});
  return success();
}

void mlir::spmd::registerElementAccessPartitioners(
    OpPartitionerRegistry &registry) {
  registry.add(tensor::ExtractOp::getOperationName(), partitionExtract);
  registry.add(tensor::InsertOp::getOperationName(), partitionInsert);
}
