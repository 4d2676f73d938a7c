//===- WidenFloats.h - A program's floats computed in f64 -------*- C++ -*-===//

#ifndef SPMD_RUNTIME_WIDENFLOATS_H
#define SPMD_RUNTIME_WIDENFLOATS_H

#include "mlir/IR/BuiltinOps.h"

namespace spmd::runtime {

/// Makes every f16, bf16 and f32 type, constant and tensor of `module` f64
/// (casts between floats vanish). Fails, leaving `module` unusable, when
/// the result does not verify (bitcasts of floats, for instance).
mlir::LogicalResult widenFloats(mlir::ModuleOp module);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_WIDENFLOATS_H
