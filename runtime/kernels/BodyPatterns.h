//===- BodyPatterns.h - Recognising linalg bodies ---------------*- C++ -*-===//
//
// Specialised kernels take an op only when its body is exactly what they
// compute: a fold of the element into the accumulator with one combiner
// (recognised in ir/BodyCombiner.h), or a multiply-add.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_KERNELS_BODYPATTERNS_H
#define SPMD_RUNTIME_KERNELS_BODYPATTERNS_H

#include "ir/BodyCombiner.h"

#include "mlir/IR/Block.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>

namespace spmd::runtime {

using mlir::spmd::foldCombiner;

/// Whether the body is `yield arg2 + arg0 * arg1` (operands of each op in
/// either order) and nothing else.
bool isMulAddBody(mlir::Block &body);

/// `a` and `b` combined as a fold of kind `c` does (see ReductionKind).
template <ReductionKind c, typename T> T combine(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (c) { // a constant: the branch folds away
    case ReductionKind::Sum:
      return a + b;
    case ReductionKind::Max:
      return std::isnan(a) || std::isnan(b) ? NAN : (a > b ? a : b);
    case ReductionKind::Min:
      return std::isnan(a) || std::isnan(b) ? NAN : (a < b ? a : b);
    case ReductionKind::MaxNum:
      return std::fmax(a, b);
    case ReductionKind::MinNum:
      return std::fmin(a, b);
    }
  } else {
    switch (c) {
    case ReductionKind::Sum:
      return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
    case ReductionKind::Max:
    case ReductionKind::MaxNum:
      return std::max(a, b);
    case ReductionKind::Min:
    case ReductionKind::MinNum:
      return std::min(a, b);
    }
  }
  return a;
}

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_KERNELS_BODYPATTERNS_H
