//===- DestinationStep.h - Kernels of single-result linalg ops --*- C++ -*-===//
//
// The step shared by the specialised kernels of linalg ops with inputs,
// one init and one result: it makes the output (a copy of the init when
// the kernel accumulates into it, else uninitialised), runs the kernel on
// the inputs and stores the result.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_KERNELS_DESTINATIONSTEP_H
#define SPMD_RUNTIME_KERNELS_DESTINATIONSTEP_H

#include "runtime/exec/Executable.h"

#include <cstring>

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
    return Step([=](Frame &frame, DeviceContext &ctx) -> llvm::Error {
      const HostBuffer &start = *frame.slots[init].tensor;
      auto out = std::make_shared<HostBuffer>(
          start.type(), std::vector<int64_t>(start.shape()), Init::None);
      if (output == Output::CopyOfInit)
        std::memcpy(out->data(), start.data(), start.sizeInBytes());
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
