//===- Pipeline.cpp - spmd-pipeline ---------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"

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
  PassPipelineRegistration<SpmdPipelineOptions>(
      "spmd-pipeline",
      "Import, (auto-shard,) propagate, partition, optimize collectives, in "
      "that order",
      [](OpPassManager &pm, const SpmdPipelineOptions &options) {
        buildSpmdPipeline(pm, options);
      });
}
