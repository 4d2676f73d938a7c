//===- SoftmaxKernels.cpp - linalg.softmax --------------------------------===//
//
// Along the normalized dimension: the maximum, exp(x - max), their sum, and
// each exp divided by it (numerically stable, as linalg's decomposition),
// in double and rounded once to the element type. Rows are split over the
// device's threads; f32 and f64 rows are read and written through
// pointers, and their exponentials taken by Eigen's vectorised exp.
//
//===----------------------------------------------------------------------===//

#include "runtime/CpuPath.h"
#include "runtime/KernelInterface.h"
#include "runtime/Parallel.h"
#include "runtime/kernels/DestinationStep.h"

#include <Eigen/Core>

#include "mlir/Dialect/Linalg/IR/Linalg.h"


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
            const DeviceContext &ctx) {
        const HostTensor &x = *in[0];
        llvm::ArrayRef<int64_t> shape = x.shape();
        int64_t length = shape[dim], inner = 1;
        for (int64_t d = dim + 1; d < int64_t(shape.size()); ++d)
          inner *= shape[d];
        int64_t outer = length ? x.numElements() / (length * inner) : 0;
        int64_t rows = outer * inner;
        // Element k of row r (outer o, inner i) is at base + k * inner.
        auto baseOf = [&](int64_t r) {
          return r / inner * length * inner + r % inner;
        };
        auto read = [&](Eigen::ArrayXd &row, int64_t base) {
          if (x.type() == DType::F32) {
            const float *p = x.as<float>() + base;
            for (int64_t k = 0; k < length; ++k)
              row[k] = p[k * inner];
          } else if (x.type() == DType::F64) {
            const double *p = x.as<double>() + base;
            for (int64_t k = 0; k < length; ++k)
              row[k] = p[k * inner];
          } else {
            for (int64_t k = 0; k < length; ++k)
              row[k] = x.getFloat(base + k * inner);
          }
        };
        auto write = [&](const Eigen::ArrayXd &row, int64_t base) {
          if (out.type() == DType::F32) {
            float *p = out.as<float>() + base;
            for (int64_t k = 0; k < length; ++k)
              p[k * inner] = float(row[k]);
          } else if (out.type() == DType::F64) {
            double *p = out.as<double>() + base;
            for (int64_t k = 0; k < length; ++k)
              p[k * inner] = row[k];
          } else {
            for (int64_t k = 0; k < length; ++k)
              out.setFloat(base + k * inner, row[k]);
          }
        };
        KernelThreads threads =
            ctx.threads.atMost(rows * length / (1 << 16));
        parallelFor(threads, rows, [&](int64_t first, int64_t last) {
          onCpuPath([&] {
            Eigen::ArrayXd row(length);
            for (int64_t r = first; r < last; ++r) {
              int64_t base = baseOf(r);
              read(row, base);
              double max = row.maxCoeff();
              row = (row - max).exp();
              row /= row.sum();
              write(row, base);
            }
          });
        });
      })(op, ctx);
}

void registerSoftmaxKernels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    attachKernel<buildSoftmax, linalg::SoftmaxOp>(context);
  });
}

} // namespace spmd::runtime
