//===- SoftmaxKernels.cpp - linalg.softmax --------------------------------===//
//
// Along the normalized dimension: the maximum, exp(x - max), their sum, and
// each exp divided by it (numerically stable, as linalg's decomposition),
// in double and rounded once to the element type.
//
//===----------------------------------------------------------------------===//

#include "runtime/KernelInterface.h"
#include "runtime/kernels/DestinationStep.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <cmath>
#include <vector>

using namespace mlir;

namespace spmd::runtime {

static llvm::Expected<Step> buildSoftmax(Operation *op, KernelContext &ctx) {
  auto softmax = llvm::cast<linalg::SoftmaxOp>(op);
  if (!softmax.getInputOperandType().hasStaticShape())
    return opError(op, "needs statically shaped tensors");
  int64_t dim = softmax.getDimension();
  return destinationKernel(
      Output::Uninitialized,
      [dim](llvm::ArrayRef<const HostTensor *> in, HostTensor &out,
            const DeviceContext &) {
        const HostTensor &x = *in[0];
        llvm::ArrayRef<int64_t> shape = x.shape();
        int64_t length = shape[dim], inner = 1;
        for (int64_t d = dim + 1; d < int64_t(shape.size()); ++d)
          inner *= shape[d];
        int64_t outer = length ? x.numElements() / (length * inner) : 0;
        std::vector<double> row(length);
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            int64_t base = o * length * inner + i;
            double max = -INFINITY, sum = 0;
            for (int64_t k = 0; k < length; ++k)
              max = std::max(max, row[k] = x.getFloat(base + k * inner));
            for (int64_t k = 0; k < length; ++k)
              sum += row[k] = std::exp(row[k] - max);
            for (int64_t k = 0; k < length; ++k)
              out.setFloat(base + k * inner, row[k] / sum);
          }
      })(op, ctx);
}

void registerSoftmaxKernels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    attachKernel<buildSoftmax, linalg::SoftmaxOp>(context);
  });
}

} // namespace spmd::runtime
