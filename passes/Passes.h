//===- Passes.h - Passes of the spmd compiler -------------------*- C++ -*-===//

#ifndef SPMD_PASSES_PASSES_H
#define SPMD_PASSES_PASSES_H

#include "ir/Namespaces.h"
#include "ir/SpmdOps.h"
#include "sharding/Propagation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/JSON.h"

#include <functional>

namespace mlir::spmd {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// One collective of a partitioned module as the communication report
/// counts it, per device and call: its operand's bytes, the ring
/// algorithm's volume and, for a reshard's, the reshard's lower bound.
struct CollectiveTraffic {
  CollectiveKind kind;
  std::vector<std::string> axes;
  int64_t groupSize, bytes, commBytes;
  std::optional<int64_t> minBytes;
};

/// The communication report of a partitioned module (see spmd-comm-report).
struct CommReport {
  std::vector<CollectiveTraffic> collectives;
  int64_t totalCommBytes = 0, minCommBytes = 0;

  /// The report as spmd-comm-report writes it.
  llvm::json::Value toJson() const;
};
FailureOr<CommReport> buildCommReport(ModuleOp module);

/// Writes a pass's JSON `report` (`what`, for errors) to the file `output`,
/// or to standard output for `-`; an unwritable file is an error on
/// `module`.
LogicalResult writeReport(ModuleOp module, const llvm::json::Value &report,
                          StringRef output, StringRef what);

struct AutoShardSettings;
/// Chooses the shardings every function of `module` left open and writes
/// them (spmd-auto-shard); returns the plan report.
FailureOr<llvm::json::Value> autoShardModule(ModuleOp module,
                                             const AutoShardSettings &settings);

/// Receives spmd-auto-shard's plan report.
using AutoShardReportSink = std::function<void(const llvm::json::Value &)>;
/// spmd-auto-shard, also handing its plan report to `sink`.
std::unique_ptr<Pass> createSpmdAutoShard(const SpmdAutoShardOptions &options,
                                          AutoShardReportSink sink);

} // namespace mlir::spmd

#endif // SPMD_PASSES_PASSES_H
