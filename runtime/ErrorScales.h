//===- ErrorScales.h - Rounding-error scales beside a program's floats -===//
//
// The slack `--check` gives a float result for rounding in another order:
// next to each float value v the program also computes a scale m_v, the
// size of the rounding errors v carries being about eps * m_v (first-order,
// forward-mode error propagation):
//   float inputs and constants   m = |x|
//   a + b, a - b                 m_a + m_b
//   a * b                        |a| m_b + |b| m_a
//   a / b                        (m_a + |a / b| m_b) / |b|
//   f(a)                         |f(a)| + |f'(a)| m_a (tanh, exp, log, sqrt,
//                                rsqrt, erf, sin, cos, ...; pow both ways)
//   max, min                     the larger of m_a, m_b
//   select, layout and tensor    the same op on the scales
//   ops, control flow, calls
// For sums and products this is the program run on the absolute values of
// its inputs (the magnitude of the terms a result sums, up to a factor of
// two for products); unlike that, a nonlinear op carries the slack of its
// operand through by its derivative instead of squashing the magnitude.
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
