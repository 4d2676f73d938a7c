//===- ErrorScales.h - Rounding-error scales beside a program's floats -===//
//
// The slack `--check` gives a float result for rounding in another order:
// next to each float value v the program also computes a scale m_v, the
// rounding errors v carries being about eps * m_v (first-order, forward
// mode error propagation, errors taken as independent): each op adds its
// own rounding |r| to its operands' errors times its derivatives, in
// quadrature,
//   float inputs and constants   m = |x|
//   a + b, a - b                 sqrt(r^2 + m_a^2 + m_b^2)
//   a * b                        sqrt(r^2 + (b m_a)^2 + (a m_b)^2)
//   a / b                        sqrt(r^2 + (m_a / b)^2 + (r m_b / b)^2)
//   f(a)                         sqrt(r^2 + (f'(a) m_a)^2) (tanh, exp, log,
//                                sqrt, rsqrt, erf, sin, cos, ...; pow both
//                                ways)
//   max, min                     the larger of m_a, m_b
//   select, layout and tensor    the same op on the scales
//   ops, control flow, calls
// A sum of K terms in any order gets about sqrt(sum of its partial sums^2),
// what its rounding in one order is (of the size of the sum of its terms'
// magnitudes where they cancel); a nonlinear op carries its operand's
// slack through by its derivative instead of squashing it; errors a linear
// map passes on add up as independent ones do (a recurrence through a
// matrix does not grow its slack by the sum of the matrix's magnitudes at
// each step).
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_ERRORSCALES_H
#define SPMD_RUNTIME_ERRORSCALES_H

#include "mlir/IR/BuiltinOps.h"

namespace spmd::runtime {

/// Makes every function of `module`, whose floats are all f64 (see
/// widenFloats), also take the scale of each float argument after its own
/// arguments, and return the scale of each float result after its own
/// results. Fails, leaving `module` unusable, on an op without a rule (a
/// discontinuous one such as floor, a user's op) or when the result does
/// not verify.
mlir::LogicalResult addErrorScales(mlir::ModuleOp module);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_ERRORSCALES_H
