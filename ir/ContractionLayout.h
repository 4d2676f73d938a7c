//===- ContractionLayout.h - Contraction operands as matrices -*- C++ -*-===//
//
// A linalg contraction's loops grouped into batch, M, N and K dimensions,
// and each operand's view in that order: where its matrices lie, or that
// the GEMM must read or write it through a dense copy. The runtime's GEMM
// kernels run from it; the working bytes the model prices come from it too
// (ir/WorkingBytes.cpp), with the local shapes of a candidate layout.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_CONTRACTIONLAYOUT_H
#define SPMD_IR_CONTRACTIONLAYOUT_H

#include "ir/Namespaces.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlir::spmd {

/// Where each batch's [rows x cols] matrix of an operand lies: element
/// (i, j) at i * ld + j, or at j * ld + i when `transposed`.
struct MatrixLayout {
  int64_t ld;
  bool transposed;
};

/// One operand's view in GEMM order: its element stride for each loop of
/// the batch, then the row, then the column group.
struct Packing {
  std::vector<int64_t> sizes, strides;
  /// The loops of the batch group, then of the row group; the rest are the
  /// column loops.
  unsigned batchLoops = 0, rowLoops = 0;

  /// The stride of loops [begin, end) taken as one dimension (0 when all
  /// have size 1), if they nest contiguously.
  std::optional<int64_t> mergedStride(unsigned begin, unsigned end) const;
  /// Each batch's [rows x cols] matrix where it lies, if it is one (else
  /// the GEMM needs a dense copy).
  std::optional<MatrixLayout> matrix(int64_t rows, int64_t cols) const;
  /// The element offset of batch `b` (batch loops in row-major order).
  int64_t batchOffset(int64_t b) const;
  /// The elements of the view (of a dense copy of it).
  int64_t elements() const;
};

struct Contraction {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  Packing a, b, c; // [batch m k], [batch k n], [batch m n]
  bool isF32;
};

/// `op`, whose body multiplies its two inputs and adds the product to its
/// init, as a contraction when its operands have `operandShapes`: maps
/// that are projected permutations of static sizes, each loop of one kind
/// and read by exactly the operands of its kind.
std::optional<Contraction>
contractionLayout(linalg::LinalgOp op,
                  ArrayRef<ArrayRef<int64_t>> operandShapes);

/// The same with the shapes of `op`'s operands.
std::optional<Contraction> contractionLayout(linalg::LinalgOp op);

} // namespace mlir::spmd

#endif // SPMD_IR_CONTRACTIONLAYOUT_H
