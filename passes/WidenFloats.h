//===- WidenFloats.h - A program's floats computed in f64 -------*- C++ -*-===//

#ifndef SPMD_PASSES_WIDENFLOATS_H
#define SPMD_PASSES_WIDENFLOATS_H

#include "ir/Namespaces.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::spmd {

/// Makes every f16, bf16 and f32 type, constant and tensor of `module` f64
/// (casts between floats vanish). Fails, leaving `module` unusable, when
/// the result does not verify (bitcasts of floats, for instance).
mlir::LogicalResult widenFloats(mlir::ModuleOp module);

} // namespace mlir::spmd

#endif // SPMD_PASSES_WIDENFLOATS_H
