//===- Pipeline.cpp - spmd-pipeline ---------------------------------------===//

#include "passes/PassOptionChecks.h"
#include "passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::spmd;

void mlir::spmd::buildSpmdPartitionPipeline(OpPassManager &pm) {
  pm.addPass(createSpmdPropagate());
  pm.addPass(createSpmdPartition());
  pm.addPass(createSpmdOptimizeCollectives());
}

/// spmd-auto-shard with the pipeline's options.
static void addAutoShard(mlir::OpPassManager &pm,
                         const mlir::spmd::SpmdPipelineOptions &options) {
  using namespace mlir::spmd;
  SpmdAutoShardOptions autoShard;
  autoShard.memoryBudget = options.memoryBudget;
  autoShard.dcnCost = options.dcnCost;
  autoShard.report = options.autoShardReport;
  pm.addPass(createSpmdAutoShard(autoShard));
}

void mlir::spmd::buildSpmdPipeline(OpPassManager &pm,
                                   const SpmdPipelineOptions &options) {
  pm.addPass(createSpmdImport());
  if (options.autoShard)
    addAutoShard(pm, options);
  buildSpmdPartitionPipeline(pm);
}

void mlir::spmd::registerSpmdPipeline() {
  // PassPipelineRegistration, with the options checked first: a bad value
  // is one error naming it (llvm::cl's own message has no error line).
  registerPassPipeline(
      "spmd-pipeline",
      "Import, (auto-shard,) propagate, partition, optimize collectives, in "
      "that order",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        CheckedOption checks[] = {{"auto-shard", boolean(), true},
                                  {"memory-budget", memoryBudgetCheck()},
                                  {"dcn-cost", dcnCostCheck()},
                                  {"auto-shard-report", anyValue()}};
        SpmdPipelineOptions options;
        if (failed(parseCheckedOptions(
                "spmd-pipeline", text, checks, errorHandler,
                [&](function_ref<LogicalResult(const Twine &)> handler) {
                  std::string message;
                  llvm::raw_string_ostream os(message);
                  if (succeeded(options.parseFromString(text, os)))
                    return success();
                  return handler(message);
                })))
          return failure();
        buildSpmdPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(SpmdPipelineOptions());
      });
}
