//===- SoftmaxKernels.cpp - linalg.softmax --------------------------------===//
//
// Along the normalized dimension: the maximum, exp(x - max), their sum, and
// each exp divided by it (numerically stable, as linalg's decomposition).
// Rows are split over the device's threads. Contiguous f32 rows (softmax
// over the last dimension) run in f32 in the CPU path's kernel library,
// with its own exp at the path's vector width; others through Eigen's exp
// in double here, rounded once.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/CpuPath.h"
#include "runtime/kernels/KernelInterface.h"
#include "runtime/kernels/Parallel.h"
#include "runtime/kernels/gemm/GemmKernels.h"
#include "runtime/kernels/DestinationStep.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <Eigen/Core>

using namespace mlir;

namespace spmd::runtime {

static llvm::Expected<Step> buildSoftmax(Operation *op, KernelContext &ctx) {
  auto softmax = llvm::cast<linalg::SoftmaxOp>(op);
  if (!softmax.getInputOperandType().hasStaticShape())
    return opError(op, "needs statically shaped tensors");
  int64_t dim = softmax.getDimension();
  return destinationKernel(
      Output::Uninitialized, [dim](llvm::ArrayRef<const HostBuffer *> in,
                                   HostBuffer &out, const DeviceContext &ctx) {
        const HostBuffer &x = *in[0];
        llvm::ArrayRef<int64_t> shape = x.shape();
        int64_t length = shape[dim], inner = 1;
        for (int64_t d = dim + 1; d < int64_t(shape.size()); ++d)
          inner *= shape[d];
        int64_t outer = length ? x.numElements() / (length * inner) : 0;
        int64_t rows = outer * inner;
        KernelThreads threads = ctx.threads.atMost(rows * length / (1 << 16));
        if (x.type() == ElementType::F32 && inner == 1) {
          auto kernel = gemmKernels().softmaxRowsF32;
          const float *from = x.as<float>();
          float *to = out.as<float>();
          parallelFor(threads, rows, [&](int64_t first, int64_t last) {
            kernel(from + first * length, to + first * length, last - first,
                   length);
          });
          return;
        }
        // Element k of row r (outer o, inner i) is at base + k * inner.
        auto rowsThrough = [&](auto get, auto set) {
          parallelFor(threads, rows, [&](int64_t first, int64_t last) {
            onCpuPath([&] {
              Eigen::ArrayXd row(length);
              for (int64_t r = first; r < last; ++r) {
                int64_t base = r / inner * length * inner + r % inner;
                for (int64_t k = 0; k < length; ++k)
                  row[k] = get(base + k * inner);
                row = (row - row.maxCoeff()).exp();
                row /= row.sum();
                for (int64_t k = 0; k < length; ++k)
                  set(base + k * inner, row[k]);
              }
            });
          });
        };
        // f32 and f64 through pointers; other floats through accessors.
        auto typed = [&](auto zero) {
          using T = decltype(zero);
          const T *from = x.as<T>();
          T *to = out.as<T>();
          rowsThrough([=](int64_t i) { return double(from[i]); },
                      [=](int64_t i, double v) { to[i] = T(v); });
        };
        if (x.type() == ElementType::F32)
          typed(0.0f);
        else if (x.type() == ElementType::F64)
          typed(0.0);
        else
          rowsThrough([&](int64_t i) { return x.getFloat(i); },
                      [&](int64_t i, double v) { out.setFloat(i, v); });
      })(op, ctx);
}

void registerSoftmaxKernels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    attachKernel<buildSoftmax, linalg::SoftmaxOp>(context);
  });
}

} // namespace spmd::runtime
