//===- BodyPatterns.cpp - Recognising linalg bodies -----------------------===//

#include "runtime/kernels/BodyPatterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace spmd::runtime {

static bool isPair(Value x, Value y, Value p, Value q) {
  return (x == p && y == q) || (x == q && y == p);
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

bool isZeroInit(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.value(), m_PosZeroFloat());
  return matchPattern(init, m_PosZeroFloat());
}

} // namespace spmd::runtime
