//===- Check.cpp - Partitioned results against the unpartitioned ones -----===//

#include "runtime/exec/Check.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace spmd::runtime {

double epsilonOf(ElementType type) {
  switch (type) {
  case ElementType::F64:
    return std::ldexp(1.0, -52);
  case ElementType::F16:
    return std::ldexp(1.0, -10);
  case ElementType::BF16:
    return std::ldexp(1.0, -7);
  default:
    return std::ldexp(1.0, -23);
  }
}

/// The smallest normal value of a float type.
static double smallestNormal(ElementType type) {
  switch (type) {
  case ElementType::F64:
    return std::ldexp(1.0, -1022);
  case ElementType::F16:
    return std::ldexp(1.0, -14);
  default: // f32 and bf16
    return std::ldexp(1.0, -126);
  }
}

/// The largest finite value of a float type.
static double largestFinite(ElementType type) {
  switch (type) {
  case ElementType::F64:
    return std::numeric_limits<double>::max();
  case ElementType::F16:
    return 65504;
  case ElementType::BF16:
    return std::ldexp(255.0, 120);
  default:
    return std::numeric_limits<float>::max();
  }
}

/// Whether the program overflows `type` where the f64 program `wide` does
/// not: the reference `ref` is not finite, or `wide` is beyond the type's
/// range, at a finite element of `wide`.
static bool overflows(const HostBuffer &ref, const HostBuffer &wide,
                      ElementType type) {
  for (int64_t e = 0; e < ref.numElements(); ++e) {
    double w = wide.getAsDouble(e);
    if (std::isfinite(w) && (!std::isfinite(ref.getAsDouble(e)) ||
                             std::fabs(w) > largestFinite(type)))
      return true;
  }
  return false;
}

std::vector<HostBuffer> absoluteValues(llvm::ArrayRef<HostBuffer> inputs) {
  std::vector<HostBuffer> result(inputs.begin(), inputs.end());
  for (HostBuffer &t : result)
    if (isFloat(t.type()))
      for (int64_t e = 0; e < t.numElements(); ++e)
        t.setFloat(e, std::fabs(t.getFloat(e)));
  return result;
}

std::vector<HostBuffer> inputErrorScales(llvm::ArrayRef<HostBuffer> inputs) {
  std::vector<HostBuffer> result = absoluteValues(inputs);
  for (HostBuffer &t : result)
    if (isFloat(t.type()))
      for (int64_t e = 0; e < t.numElements(); ++e)
        if (std::isinf(t.getFloat(e)))
          t.setFloat(e, 0);
  return result;
}

/// The slack of an element for its error scale: an unbounded scale (a
/// rounding error there can move the result arbitrarily far) accepts any
/// finite result, and is counted; NaN gives none.
static double slack(double scaled, CheckResult &result) {
  if (std::isinf(scaled)) {
    ++result.unbounded;
    return INFINITY;
  }
  return std::isnan(scaled) ? 0 : scaled;
}

CheckResult checkOutputs(llvm::ArrayRef<HostBuffer> outputs,
                         llvm::ArrayRef<HostBuffer> reference,
                         llvm::ArrayRef<HostBuffer> wide,
                         llvm::ArrayRef<HostBuffer> magnitude,
                         int64_t longestReduction) {
  CheckResult result;
  double k = std::sqrt(double(std::max<int64_t>(longestReduction, 1)));
  for (size_t o = 0; o < outputs.size(); ++o) {
    const HostBuffer &out = outputs[o], &ref = reference[o];
    ElementType type = ref.type();
    bool useWide = o < wide.size() && isFloat(type) && type != ElementType::F64;
    double eps = epsilonOf(type);
    // The reference's typical error over the tensor: where a value is the
    // small difference of large terms, its own error can be small by
    // chance while a reassociated sum's is not. Also relative to each
    // element's error scale, for tensors whose scales differ: where a tanh
    // squashes most sums, one it passes whole may still lose the share of
    // its scale the others typically lose.
    double typical = 0, typicalScaled = 0;
    auto scaleOf = [&](int64_t e) {
      double m =
          o < magnitude.size() ? std::fabs(magnitude[o].getAsDouble(e)) : 0;
      return eps *
             std::max({std::isnan(m) ? 0 : m, std::fabs(wide[o].getAsDouble(e)),
                       smallestNormal(type)});
    };
    if (useWide) {
      double sum = 0, sumScaled = 0;
      int64_t count = 0;
      for (int64_t e = 0; e < ref.numElements(); ++e) {
        double d = ref.getAsDouble(e) - wide[o].getAsDouble(e);
        if (std::isfinite(d)) {
          sum += d * d;
          sumScaled += std::pow(d / scaleOf(e), 2);
          ++count;
        }
      }
      typical = count ? std::sqrt(sum / count) : 0;
      typicalScaled = count ? std::sqrt(sumScaled / count) : 0;
    }
    // Which values overflow then depends on the order of the sums (and
    // what an infinity meets next, on the overflow): such elements, where
    // either result is not finite, cannot be checked.
    bool overflowing = useWide && overflows(ref, wide[o], type);
    for (int64_t e = 0; e < ref.numElements(); ++e) {
      double a = out.getAsDouble(e), r = ref.getAsDouble(e);
      double diff = std::fabs(a - r);
      double error, bound;
      if (!isFloat(type)) {
        // Exactly: i64 values above 2^53 that differ by one are the same
        // double.
        bool same = out.getInt(e) == ref.getInt(e);
        error = same ? 0 : std::max(diff, 1.0);
        bound = 0;
      } else if (!std::isfinite(a) || !std::isfinite(r)) {
        // Where the reference overflows or is undefined, so must the result.
        bool same = std::isnan(a) ? std::isnan(r) : a == r;
        if (!same && overflowing)
          ++result.overflowed;
        same |= overflowing;
        error = same ? 0 : INFINITY;
        bound = 0;
        diff = same ? 0 : INFINITY;
      } else if (useWide && std::isfinite(wide[o].getAsDouble(e))) {
        double w = wide[o].getAsDouble(e);
        error = std::fabs(a - w);
        double m = o < magnitude.size() ? magnitude[o].getAsDouble(e) : 0;
        double typicalHere = typicalScaled > 0 ? typicalScaled * scaleOf(e) : 0;
        bound = 4 * std::max({std::fabs(r - w), typical, typicalHere}) +
                8 * eps * std::max(std::fabs(w), smallestNormal(type)) +
                slack(eps * std::fabs(m), result);
      } else {
        // Both results carry their rounding errors (two ulps of the
        // scale, where the program has one).
        double m = o < magnitude.size() ? magnitude[o].getAsDouble(e) : 0;
        error = diff;
        bound = 64 * eps * k * (1 + std::fabs(r)) +
                slack(2 * eps * std::fabs(m), result);
      }
      result.maxAbsErr = std::max(result.maxAbsErr, diff);
      // Relative to 1 + |r|: a plain |a - r| / |r| explodes near zero.
      result.maxRelErr = std::max(result.maxRelErr, diff / (1 + std::fabs(r)));
      if (error > bound)
        result.pass = false;
      result.worst = std::max(result.worst, bound > 0 ? error / bound
                                            : error > 0 ? INFINITY
                                                        : 0.0);
    }
  }
  return result;
}

bool copiesAgree(const HostBuffer &copy, const HostBuffer &first) {
  assert(copy.type() == first.type() && copy.shape() == first.shape());
  if (std::memcmp(copy.data(), first.data(), copy.sizeInBytes()) == 0)
    return true;
  ElementType type = copy.type();
  if (!isFloat(type)) {
    for (int64_t i = 0; i < copy.numElements(); ++i)
      if (copy.getInt(i) != first.getInt(i))
        return false;
    return true;
  }
  double eps = epsilonOf(type), tiny = smallestNormal(type);
  for (int64_t i = 0; i < copy.numElements(); ++i) {
    double a = copy.getFloat(i), b = first.getFloat(i);
    if (a == b || (std::isnan(a) && std::isnan(b)))
      continue;
    // The spacing of the type's values at the larger of the two (below
    // the normal range, the subnormals' spacing).
    double larger = std::max({std::fabs(a), std::fabs(b), tiny});
    if (!(std::fabs(a - b) <= 4 * std::ldexp(eps, std::ilogb(larger))))
      return false;
  }
  return true;
}

} // namespace spmd::runtime
