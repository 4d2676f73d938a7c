//===- CustomDialect.cpp - A user's dialect with one op -------------------===//

#include "CustomDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;

#include "CustomDialect.cpp.inc"

void custom::CustomDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "CustomOps.cpp.inc"
      >();
}

LogicalResult custom::SumSquaresOp::verify() {
  ArrayRef<int64_t> input = getInput().getType().getShape();
  if (input.empty() || getResult().getType().getShape() != input.drop_back())
    return emitOpError("result must be the input without its last dimension");
  return success();
}

#define GET_OP_CLASSES
#include "CustomOps.cpp.inc"
