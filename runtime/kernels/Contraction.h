//===- Contraction.h - Linalg ops computing C += A * B ----------*- C++ -*-===//
//
// The GEMM kernels of contractions (EigenKernels.cpp, DnnlMatmulKernels.cpp),
// run from their operands' views (ir/ContractionLayout.h).
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_KERNELS_CONTRACTION_H
#define SPMD_RUNTIME_KERNELS_CONTRACTION_H

#include "ir/ContractionLayout.h"
#include "runtime/exec/HostBuffer.h"
#include "runtime/kernels/Parallel.h"
#include "runtime/kernels/gemm/GemmKernels.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace spmd::runtime {

using mlir::spmd::Contraction;
using mlir::spmd::Packing;

/// Each batch's [rows x cols] matrix of `view` at `data`, where it lies.
template <typename T>
std::optional<GemmOperand<T>> matrixOf(const Packing &view, T *data,
                                       int64_t rows, int64_t cols) {
  std::optional<mlir::spmd::MatrixLayout> layout = view.matrix(rows, cols);
  if (!layout)
    return std::nullopt;
  return GemmOperand<T>{data, layout->ld, layout->transposed};
}

/// `op` as a contraction: a multiply-add body over projected-permutation
/// maps of static shapes, each loop of one kind and read by exactly the
/// operands of its kind.
std::optional<Contraction> contractionOf(mlir::linalg::LinalgOp op);

/// `c` of f32 by the CPU path's GEMM on `threads` (splitting rows, or
/// columns when there are too few rows), into `out`, which holds the init
/// when `accumulate`.
void contractF32(const Contraction &c, const HostBuffer &a, const HostBuffer &b,
                 HostBuffer &out, bool accumulate, KernelThreads threads);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_KERNELS_CONTRACTION_H
