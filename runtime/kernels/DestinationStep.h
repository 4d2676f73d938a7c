//===- DestinationStep.h - Kernels of single-result linalg ops --*- C++ -*-===//
//
// The step shared by the specialised kernels of linalg ops with inputs,
// one init and one result: it makes the output (the init itself where it
// dies here, else a copy of it when the kernel accumulates into it, else
// a fresh buffer), runs the kernel on the inputs and stores the result.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_KERNELS_DESTINATIONSTEP_H
#define SPMD_RUNTIME_KERNELS_DESTINATIONSTEP_H

#include "runtime/exec/Executable.h"

namespace spmd::runtime {

enum class Output { CopyOfInit, Uninitialized };

/// `compute(inputs, out, context)` with the op's inputs in order.
template <typename Compute>
KernelBuilder destinationKernel(Output output, Compute compute) {
  return [output, compute](mlir::Operation *op,
                           KernelContext &context) -> llvm::Expected<Step> {
    std::vector<unsigned> inputs;
    for (unsigned i = 0; i + 1 < op->getNumOperands(); ++i)
      inputs.push_back(context.slot(op->getOperand(i)));
    unsigned init = context.slot(op->getOperands().back()),
             result = context.slot(op->getResult(0));
    // Taken, the init (its only use is this op's) holds the output: no
    // second buffer of its size beside it (a transpose into an empty).
    bool initDies = context.mayTake(op, op->getOperands().back());
    return Step([=](Frame &frame, DeviceContext &ctx) -> llvm::Error {
      TensorRef out = takeForWriting(frame.slots[init], initDies,
                                     output == Output::CopyOfInit);
      std::vector<const HostBuffer *> in;
      for (unsigned slot : inputs)
        in.push_back(frame.slots[slot].tensor.get());
      compute(in, *out, ctx);
      frame.slots[result] = RValue::ofTensor(std::move(out));
      return llvm::Error::success();
    });
  };
}

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_KERNELS_DESTINATIONSTEP_H
