//===- Contraction.h - Linalg ops computing C += A * B ----------*- C++ -*-===//
//
// A contraction's loops grouped into batch, M, N and K dimensions, and each
// operand's view in that order: what the GEMM kernels (EigenKernels.cpp,
// DnnlMatmulKernels.cpp) run it from.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_KERNELS_CONTRACTION_H
#define SPMD_RUNTIME_KERNELS_CONTRACTION_H

#include "runtime/exec/HostBuffer.h"
#include "runtime/kernels/Parallel.h"
#include "runtime/kernels/gemm/GemmKernels.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace spmd::runtime {

/// One operand's view in GEMM order: its element stride for each loop of
/// `loops` (the batch, then the row, then the column loops).
struct Packing {
  std::vector<int64_t> sizes, strides;
  /// The loops of the batch group, then of the row group; the rest are the
  /// column loops.
  unsigned batchLoops = 0, rowLoops = 0;

  /// The stride of loops [begin, end) taken as one dimension (0 when all
  /// have size 1), if they nest contiguously.
  std::optional<int64_t> mergedStride(unsigned begin, unsigned end) const {
    std::optional<int64_t> stride;
    int64_t expected = 0;
    for (unsigned i = end; i-- > begin;) {
      if (sizes[i] == 1)
        continue;
      if (stride && strides[i] != expected)
        return std::nullopt;
      if (!stride)
        stride = strides[i];
      expected = strides[i] * sizes[i];
    }
    return stride.value_or(0);
  }

  /// Each batch's [rows x cols] matrix where it lies: row-major with a
  /// leading dimension, or transposed.
  template <typename T>
  std::optional<GemmOperand<T>> matrix(T *data, int64_t rows,
                                       int64_t cols) const {
    std::optional<int64_t> rowStride =
        mergedStride(batchLoops, batchLoops + rowLoops);
    std::optional<int64_t> colStride =
        mergedStride(batchLoops + rowLoops, sizes.size());
    if (!rowStride || !colStride)
      return std::nullopt;
    if (cols == 1 || *colStride == 1)
      return GemmOperand<T>{data, rows == 1 ? cols : *rowStride, false};
    if (rows == 1 || *rowStride == 1)
      return GemmOperand<T>{data, *colStride, true};
    return std::nullopt;
  }

  /// The element offset of batch `b` (batch loops in row-major order).
  int64_t batchOffset(int64_t b) const {
    int64_t offset = 0;
    for (unsigned i = batchLoops; i-- > 0;) {
      offset += b % sizes[i] * strides[i];
      b /= sizes[i];
    }
    return offset;
  }
};

struct Contraction {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  Packing a, b, c; // [batch m k], [batch k n], [batch m n]
  bool isF32;
};

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
