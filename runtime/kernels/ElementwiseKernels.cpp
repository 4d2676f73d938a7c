//===- ElementwiseKernels.cpp - arith and math ops ------------------------===//
//
// An arith or math op is compiled into a one-instruction ScalarProgram and
// run over its operands in blocks (on tensors) or on one lane (scalars).
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/KernelInterface.h"
#include "runtime/kernels/ScalarProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/OpDefinition.h"

using namespace mlir;

namespace spmd::runtime {

static llvm::Expected<Step> buildElementwise(Operation *op,
                                             KernelContext &context) {
  llvm::Expected<ScalarProgram> compiled = ScalarProgram::compileOp(op);
  if (!compiled)
    return compiled.takeError();
  auto program = std::make_shared<ScalarProgram>(std::move(*compiled));
  std::vector<unsigned> operands;
  for (Value operand : op->getOperands())
    operands.push_back(context.slot(operand));
  unsigned result = context.slot(op->getResult(0));
  auto tensorType =
      llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!tensorType) {
    return Step([=](Frame &frame, DeviceContext &) -> llvm::Error {
      thread_local std::vector<Register> regs;
      program->prepare(regs);
      for (auto [r, slot] : llvm::enumerate(operands)) {
        const RValue &v = frame.slots[slot];
        regs[r].fill(0, 1, v.f, v.i);
      }
      program->run(regs, 1);
      const Register &out = regs[program->results()[0]];
      frame.slots[result] =
          out.isFloat ? RValue::ofFloat(out.lane(0)) : RValue::ofInt(out.i[0]);
      return llvm::Error::success();
    });
  }
  llvm::Expected<ElementType> dtype =
      elementTypeOf(tensorType.getElementType());
  if (!dtype)
    return opError(op, llvm::toString(dtype.takeError()));
  ElementType type = *dtype;
  std::vector<int64_t> shape(tensorType.getShape());
  return Step([=](Frame &frame, DeviceContext &) -> llvm::Error {
    thread_local std::vector<Register> regs;
    program->prepare(regs);
    auto out = std::make_shared<HostBuffer>(type, shape);
    int64_t total = out->numElements();
    std::vector<const HostBuffer *> inputs;
    for (unsigned slot : operands)
      inputs.push_back(frame.slots[slot].tensor.get());
    unsigned resultReg = program->results()[0];
    for (int64_t start = 0; start < total; start += kBlock) {
      int64_t lanes = std::min<int64_t>(kBlock, total - start);
      for (size_t r = 0; r < inputs.size(); ++r) {
        if (!inputs[r]) { // a scalar operand (a select's condition)
          const RValue &v = frame.slots[operands[r]];
          regs[r].fill(0, lanes, v.f, v.i);
          continue;
        }
        loadLanes(regs[r], *inputs[r], start, 1, lanes, /*mayView=*/true);
      }
      program->run(regs, lanes);
      storeLanes(regs[resultReg], *out, start, 1, lanes);
    }
    streamFence();
    frame.slots[result] = RValue::ofTensor(out);
    return llvm::Error::success();
  });
}

/// The elementwise arith and math ops with one result, scalars or tensors
/// alike (constants have a kernel of their own).
template <typename... OpTys> static void attachElementwise(MLIRContext *context) {
  auto attach = [&](auto op) {
    using OpTy = decltype(op);
    if constexpr (OpTy::template hasTrait<OpTrait::Elementwise>() &&
                  OpTy::template hasTrait<OpTrait::OneResult>())
      attachKernel<buildElementwise, OpTy>(context);
  };
  (attach(OpTys()), ...);
}

void registerElementwiseKernels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    attachElementwise<
#define GET_OP_LIST
#include "mlir/Dialect/Arith/IR/ArithOps.cpp.inc"
        >(context);
  });
  registry.addExtension(+[](MLIRContext *context, math::MathDialect *) {
    attachElementwise<
#define GET_OP_LIST
#include "mlir/Dialect/Math/IR/MathOps.cpp.inc"
        >(context);
  });
}

} // namespace spmd::runtime
