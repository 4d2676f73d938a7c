//===- Check.h - Partitioned results against the reference ------*- C++ -*-===//
//
// What `spmd-run --check` accepts. Integers must be equal. A float element
// `a` of the partitioned program is compared with the unpartitioned
// program's `r` and, where the program computes in f16, bf16 or f32, with
// the same program computed in f64 (`w`) with the error scale `m` of each
// value (passes/ErrorScales.h; where an op has no rule, the program in f64 on the
// absolute values of its float inputs): it passes when
//   |a - w| <= 4 max(|r - w|, rms(r - w)) + 8 eps max(|w|, tiny) + eps |m|
// (four times the reference's own error there or, if larger, its root mean
// square over the tensor; eight ulps of the output type at |w|, tiny being
// the type's smallest normal; one ulp of the error scale, which a
// reassociated sum of cancelling terms can lose). The reduction length
// does not widen it: what a longer reduction loses shows in |r - w| and m.
// Without an f64 reference (f64 outputs, or programs that cannot be
// widened) it passes when |a - r| <= 64 eps sqrt(K) (1 + |r|) + 2 eps |m|
// (m where the program has it, else 0). An infinite m (a rounding error
// can move the value arbitrarily far) accepts any finite result there,
// and counts it as unbounded.
// NaNs and infinities must be where the reference has them, unless the
// program overflows its float type where the f64 program does not (its
// reference is not finite, or the f64 result is beyond the type's range,
// somewhere in the output): then an element where either result is not
// finite passes, and is counted as not checked.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_CHECK_H
#define SPMD_RUNTIME_CHECK_H

#include "runtime/exec/HostBuffer.h"

namespace spmd::runtime {

struct CheckResult {
  bool pass = true;
  /// Largest |a - r| and |a - r| / (1 + |r|).
  double maxAbsErr = 0, maxRelErr = 0;
  /// Largest error over its bound (at most 1 when passing).
  double worst = 0;
  /// Whether the bound had f64 results, and error scales propagated
  /// through every op (passes/ErrorScales.h) rather than the magnitudes of the
  /// inputs' absolute values.
  bool wideReference = false, errorScales = false;
  /// Elements whose error scale is unbounded (a denominator, or the operand
  /// of a log or a root, whose rounding uncertainty reaches 0 or beyond):
  /// any finite result passes there.
  int64_t unbounded = 0;
  /// Elements of an output where the program overflows its float type and
  /// the f64 program does not, and one of the results is not finite: which
  /// values overflow depends on the order of the sums, so any result passes
  /// there.
  int64_t overflowed = 0;
  /// Where a copy of a result disagrees with the first (copiesAgree; a
  /// result replicated over devices is checked on every device): which
  /// result, and the devices whose shards differ. Empty when all agree.
  std::string copyMismatch;
};

/// `wide` holds the f64 results of the same program (or is empty) and
/// `magnitude` their error scales (or is empty).
CheckResult checkOutputs(llvm::ArrayRef<HostBuffer> outputs,
                         llvm::ArrayRef<HostBuffer> reference,
                         llvm::ArrayRef<HostBuffer> wide,
                         llvm::ArrayRef<HostBuffer> magnitude,
                         int64_t longestReduction);

/// `inputs` with every float element replaced by its absolute value.
std::vector<HostBuffer> absoluteValues(llvm::ArrayRef<HostBuffer> inputs);

/// The error scales of a program's inputs (passes/ErrorScales.h): the
/// absolute values of their floats, 0 for infinities (no rounding makes
/// one from a finite value here: they are exact).
std::vector<HostBuffer> inputErrorScales(llvm::ArrayRef<HostBuffer> inputs);

/// Whether two copies of one value (devices a sharding says hold the same)
/// agree: integers equal; floats equal, both NaN, or within four ulps of
/// the larger (copies of a sum taken in two orders). Not the check's bound
/// against the reference: that one allows what a reference without an f64
/// form cannot resolve, and two copies run the same code on the same data.
bool copiesAgree(const HostBuffer &copy, const HostBuffer &first);

/// The distance between 1 and the next larger value of a float type.
double epsilonOf(ElementType type);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_CHECK_H
