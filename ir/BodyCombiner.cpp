//===- BodyCombiner.cpp - The reduction a region body applies -------------===//

#include "ir/BodyCombiner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::spmd;

std::optional<ReductionKind> mlir::spmd::combinerKind(Operation *op) {
  if (llvm::isa_and_nonnull<arith::AddFOp, arith::AddIOp>(op))
    return ReductionKind::Sum;
  if (llvm::isa_and_nonnull<arith::MaximumFOp, arith::MaxSIOp>(op))
    return ReductionKind::Max;
  if (llvm::isa_and_nonnull<arith::MinimumFOp, arith::MinSIOp>(op))
    return ReductionKind::Min;
  if (llvm::isa_and_nonnull<arith::MaxNumFOp>(op))
    return ReductionKind::MaxNum;
  if (llvm::isa_and_nonnull<arith::MinNumFOp>(op))
    return ReductionKind::MinNum;
  return std::nullopt;
}

static bool isPair(Value x, Value y, Value p, Value q) {
  return (x == p && y == q) || (x == q && y == p);
}

std::optional<ReductionKind>
mlir::spmd::foldCombiner(Block &body, Value element, Value accumulator) {
  if (body.getOperations().size() != 2)
    return std::nullopt;
  Operation &op = body.front();
  Operation *terminator = body.getTerminator();
  if (op.getNumOperands() != 2 || op.getNumResults() != 1 ||
      terminator->getNumOperands() != 1 ||
      terminator->getOperand(0) != op.getResult(0) ||
      !isPair(op.getOperand(0), op.getOperand(1), element, accumulator))
    return std::nullopt;
  return combinerKind(&op);
}
