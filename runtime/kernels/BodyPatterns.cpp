//===- BodyPatterns.cpp - Recognising linalg bodies -----------------------===//

#include "runtime/kernels/BodyPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

namespace spmd::runtime {

static bool isPair(Value x, Value y, Value p, Value q) {
  return (x == p && y == q) || (x == q && y == p);
}

std::optional<Combiner> foldCombiner(Block &body, Value element,
                                     Value accumulator) {
  if (body.getOperations().size() != 2)
    return std::nullopt;
  Operation &op = body.front();
  if (op.getNumOperands() != 2 || op.getNumResults() != 1 ||
      body.getTerminator()->getNumOperands() != 1 ||
      body.getTerminator()->getOperand(0) != op.getResult(0) ||
      !isPair(op.getOperand(0), op.getOperand(1), element, accumulator))
    return std::nullopt;
  if (llvm::isa<arith::AddFOp, arith::AddIOp>(op))
    return Combiner::Add;
  if (llvm::isa<arith::MaximumFOp, arith::MaxSIOp>(op))
    return Combiner::Maximum;
  if (llvm::isa<arith::MinimumFOp, arith::MinSIOp>(op))
    return Combiner::Minimum;
  if (llvm::isa<arith::MaxNumFOp>(op))
    return Combiner::MaxNum;
  if (llvm::isa<arith::MinNumFOp>(op))
    return Combiner::MinNum;
  return std::nullopt;
}

bool isMulAddBody(Block &body) {
  if (body.getNumArguments() != 3 || body.getOperations().size() != 3)
    return false;
  auto mul = llvm::dyn_cast<arith::MulFOp>(body.front());
  auto add = llvm::dyn_cast<arith::AddFOp>(*std::next(body.begin()));
  auto yield = llvm::dyn_cast<linalg::YieldOp>(body.back());
  if (!mul || !add || !yield || yield->getOperand(0) != add.getResult())
    return false;
  return isPair(mul.getLhs(), mul.getRhs(), body.getArgument(0),
                body.getArgument(1)) &&
         isPair(add.getLhs(), add.getRhs(), body.getArgument(2),
                mul.getResult());
}

} // namespace spmd::runtime
