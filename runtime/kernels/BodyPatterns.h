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
#include "runtime/exec/TensorOps.h"

#include "mlir/IR/Block.h"

#include <optional>

namespace spmd::runtime {

using mlir::spmd::foldCombiner;

/// Whether the body is `yield arg2 + arg0 * arg1` (operands of each op in
/// either order) and nothing else.
bool isMulAddBody(mlir::Block &body);

/// Whether the init `init` is all +0.0 (a fill or splat): a kernel then
/// overwrites it instead of adding to a copy. (Not -0.0: -0.0 plus a sum of
/// -0.0 products is -0.0, and the sum alone is +0.0.)
bool isZeroInit(mlir::Value init);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_KERNELS_BODYPATTERNS_H
