//===- ErrorScales.h - Rounding-error scales beside a program's floats ----===//
//
// The slack `--check` gives a float result for rounding in another order:
// next to each float value v the program also computes a scale m_v, the
// rounding errors v carries being about eps * m_v (forward-mode error
// propagation, errors taken as independent): each op adds its own
// rounding |r| to its operands' errors times their factors, in
// quadrature,
//   float inputs and constants   m = |x| (0 for infinities: exact)
//   a + b, a - b                 sqrt(r^2 + m_a^2 + m_b^2)
//   a * b                        sqrt(r^2 + (B m_a)^2 + (A m_b)^2)
//   a / b                        sqrt(r^2 + (m_a / N)^2 + (r m_b / N)^2)
//   f(a)                         sqrt(r^2 + (s m_a)^2) (tanh, exp, log,
//                                sqrt, rsqrt, erf, erfc, atan, asin,
//                                acos, asinh, acosh, atanh, cbrt; f'(a)
//                                for sin, cos, tan, sinh, cosh, atan2
//                                and pow)
//   max, min                     the winner's m where the order is
//                                certain (|a - b| > d_a + d_b), else the
//                                larger of m_a, m_b
//   select, layout and tensor    the same op on the scales
//   ops, control flow, calls
// where the factors hold over the whole interval a rounding error can
// move an operand, a +- d with d = eps * m_a (`halfWidth` = eps, the
// check's slack), cut to the range its op computes (tanh in [-1, 1],
// exp, |x| and x * x at least 0, sums of those and constants): s is the
// secant max |f(end) - f(a)| / d (f'(a) where f is undefined at an end,
// and for an exponential not bounded above), N the end of b's interval
// nearest to 0 (unbounded where it holds 0), A and B the farthest end of
// a's and b's intervals where their ranges are bounded on both sides,
// else |a| and |b|. With small errors this is the first-order rule; with
// errors of 20% it follows a tanh that saturates, or leaves saturation,
// over the interval, and a product of two uncertain values. A value of a
// range [lo, hi] gets at most (hi - lo) / eps. A scale may be infinite
// (a denominator that can be 0): the check then accepts any finite value.
// A sum of K terms in any order gets about sqrt(sum of its partial sums^2),
// what its rounding in one order is (of the size of the sum of its terms'
// magnitudes where they cancel); errors a linear map passes on add up as
// independent ones do (a recurrence through a matrix does not grow its
// slack by the sum of the matrix's magnitudes at each step), times the
// factor of RepeatedMatrix.h where the map meets the same errors again.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PASSES_ERRORSCALES_H
#define SPMD_PASSES_ERRORSCALES_H

#include "ir/Namespaces.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::spmd {

/// Makes every function of `module`, whose floats are all f64 (see
/// widenFloats), also take the scale of each float argument after its own
/// arguments, and return the scale of each float result after its own
/// results. `halfWidth` is the eps of the program's least precise float type
/// before widening (0 for f64 programs: the first-order rules). With an
/// `entry`, the functions it does not reach (through calls) are erased
/// first. Fails, leaving `module` unusable, on an op without a rule (a
/// discontinuous one such as floor, a user's op: an error names it) or when
/// the result does not verify.
mlir::LogicalResult addErrorScales(mlir::ModuleOp module, double halfWidth,
                                   llvm::StringRef entry = "");

} // namespace mlir::spmd

#endif // SPMD_PASSES_ERRORSCALES_H
