//===- Passes.h - Passes of the spmd compiler -------------------*- C++ -*-===//

#ifndef SPMD_PASSES_PASSES_H
#define SPMD_PASSES_PASSES_H

#include "ir/SpmdOps.h"
#include "sharding/Propagation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/JSON.h"

namespace mlir::spmd {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// The communication report of a partitioned module (see spmd-comm-report).
FailureOr<llvm::json::Value> buildCommReport(ModuleOp module);

/// `spmd-pipeline`: import, propagate, partition, optimize collectives.
void buildSpmdPipeline(OpPassManager &pm);
/// The pipeline after import: propagate, partition, optimize collectives.
void buildSpmdPartitionPipeline(OpPassManager &pm);
void registerSpmdPipeline();

} // namespace mlir::spmd

#endif // SPMD_PASSES_PASSES_H
