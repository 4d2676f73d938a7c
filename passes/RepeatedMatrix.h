//===- RepeatedMatrix.h - Errors a matrix passes on again and again -------===//
//
// Error scales add the errors a contraction passes on in quadrature, as
// independent ones add up: through a matrix W, errors of scale m grow by
// about W's RMS column norm. A recurrence applies one W to its own
// errors at each step, and those line up with W's top singular vectors
// (power iteration) and grow by its largest singular value instead. The
// factor between the two, sigma_max(W) * sqrt(K) / ||W||_F (K the number
// of elements a product contracts; at least 1), is what the scales of
// errors W meets again are multiplied by.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PASSES_REPEATEDMATRIX_H
#define SPMD_PASSES_REPEATEDMATRIX_H

#include "ir/Namespaces.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::spmd {

/// The factors of the matrices in one program, each computed once.
class RepeatedMatrices {
public:
  /// `scale`, the error scale of input `operand` of `op`, times the factor
  /// of `op`'s other input where `op` applies that matrix to `operand`'s
  /// errors again: `op` is a contraction (a product of its two inputs
  /// summed over the dims they share) of a statically shaped matrix, and
  /// either sits in a loop that computes `operand` and not the matrix, or
  /// `operand` is computed from another op applying the matrix (an
  /// unrolled recurrence). Else `scale` itself.
  mlir::Value scaleFor(mlir::linalg::LinalgOp op, mlir::OpOperand &operand,
                       mlir::Value scale);

private:
  /// By matrix and the bits of its contracted dims.
  llvm::DenseMap<std::pair<mlir::Value, uint64_t>, mlir::Value> factors;
};

} // namespace mlir::spmd

#endif // SPMD_PASSES_REPEATEDMATRIX_H
