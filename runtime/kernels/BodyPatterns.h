//===- BodyPatterns.h - Recognising linalg bodies ---------------*- C++ -*-===//
//
// Specialised kernels take an op only when its body is exactly what they
// compute: a fold of the element into the accumulator with one combiner,
// or a multiply-add.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_KERNELS_BODYPATTERNS_H
#define SPMD_RUNTIME_KERNELS_BODYPATTERNS_H

#include "mlir/IR/Block.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>

namespace spmd::runtime {

/// How a fold combines (floats: NaN rules of arith.maximumf/minimumf and
/// maxnumf/minnumf; integers: signed, wrapping sums).
enum class Combiner { Add, Maximum, Minimum, MaxNum, MinNum };

/// The combiner of a body that is `yield combiner(element, accumulator)`
/// (operands in either order) and nothing else.
std::optional<Combiner> foldCombiner(mlir::Block &body, mlir::Value element,
                                     mlir::Value accumulator);

/// Whether the body is `yield arg2 + arg0 * arg1` (operands of each op in
/// either order) and nothing else.
bool isMulAddBody(mlir::Block &body);

template <Combiner c, typename T> T combine(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (c) { // a constant: the branch folds away
    case Combiner::Add:
      return a + b;
    case Combiner::Maximum:
      return std::isnan(a) || std::isnan(b) ? NAN : (a > b ? a : b);
    case Combiner::Minimum:
      return std::isnan(a) || std::isnan(b) ? NAN : (a < b ? a : b);
    case Combiner::MaxNum:
      return std::fmax(a, b);
    case Combiner::MinNum:
      return std::fmin(a, b);
    }
  } else {
    switch (c) {
    case Combiner::Add:
      return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
    case Combiner::Maximum:
    case Combiner::MaxNum:
      return std::max(a, b);
    case Combiner::Minimum:
    case Combiner::MinNum:
      return std::min(a, b);
    }
  }
  return a;
}

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_KERNELS_BODYPATTERNS_H
