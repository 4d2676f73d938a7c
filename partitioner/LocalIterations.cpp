//===- LocalIterations.cpp - A local op's iterations, as the global op's --===//
//
// A linalg op partitioned over split loops iterates over the device's
// shard of each loop. Two things in its body must still mean what they
// meant globally: `linalg.index` is the global position (causal masks,
// rotary positions), and an iteration in the padding of an uneven shard
// is no iteration at all: it leaves every accumulator as it was, whatever
// the body computes (exp(0) added to a softmax denominator would not be).
//
//===----------------------------------------------------------------------===//

#include "partitioner/Partitioner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::spmd;

Value mlir::spmd::shardOffset(OpBuilder &b, Location loc, const MeshInfo &mesh,
                              ArrayRef<::spmd::AxisIndex> axes,
                              int64_t shardSize) {
  return arith::MulIOp::create(
      b, loc, linearIndex(b, loc, mesh, axes),
      arith::ConstantIndexOp::create(b, loc, shardSize));
}

void mlir::spmd::globalizeLoopIndices(OpBuilder &b, linalg::LinalgOp op,
                                      ArrayRef<Value> offsets) {
  SmallVector<linalg::IndexOp> indices;
  op->walk([&](linalg::IndexOp index) {
    if (index->getParentOfType<linalg::LinalgOp>() == op &&
        index.getDim() < offsets.size() && offsets[index.getDim()])
      indices.push_back(index);
  });
  OpBuilder::InsertionGuard guard(b);
  for (linalg::IndexOp index : indices) {
    b.setInsertionPointAfter(index);
    auto global = arith::AddIOp::create(b, index.getLoc(), index,
                                        offsets[index.getDim()]);
    index.getResult().replaceAllUsesExcept(global, global);
  }
}

FailureOr<linalg::LinalgOp>
mlir::spmd::skipIterationsPast(OpBuilder &b, linalg::LinalgOp op,
                               ArrayRef<std::pair<unsigned, Value>> bounds) {
  if (bounds.empty())
    return op;
  // Named ops have no body to edit: give them one.
  if (!llvm::isa<linalg::GenericOp>(op.getOperation())) {
    IRRewriter rewriter(b);
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generic))
      return failure();
    op = *generic;
  }
  Block *body = op.getBlock();
  Operation *yield = body->getTerminator();
  Location loc = yield->getLoc();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(yield);
  Value inside;
  for (auto [loop, bound] : bounds) {
    Value position = linalg::IndexOp::create(b, loc, loop);
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        position, bound);
    inside = inside ? arith::AndIOp::create(b, loc, inside, below) : below;
  }
  for (OpOperand &yielded : yield->getOpOperands()) {
    Value unchanged =
        body->getArgument(op.getNumDpsInputs() + yielded.getOperandNumber());
    yielded.set(
        arith::SelectOp::create(b, loc, inside, yielded.get(), unchanged));
  }
  return op;
}
