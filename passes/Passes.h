//===- Passes.h - Passes of the spmd compiler -------------------*- C++ -*-===//

#ifndef SPMD_PASSES_PASSES_H
#define SPMD_PASSES_PASSES_H

#include "ir/SpmdOps.h"
#include "sharding/Propagation.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::spmd {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace mlir::spmd

#endif // SPMD_PASSES_PASSES_H
