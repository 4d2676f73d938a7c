//===- Pipeline.cpp - spmd-pipeline ---------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"

void mlir::spmd::buildSpmdPartitionPipeline(OpPassManager &pm) {
  pm.addPass(createSpmdPropagate());
  pm.addPass(createSpmdPartition());
  pm.addPass(createSpmdOptimizeCollectives());
}

void mlir::spmd::buildSpmdPipeline(OpPassManager &pm) {
  pm.addPass(createSpmdImport());
  buildSpmdPartitionPipeline(pm);
}

void mlir::spmd::registerSpmdPipeline() {
  PassPipelineRegistration<>(
      "spmd-pipeline",
      "Import, propagate, partition, optimize collectives, in that order",
      buildSpmdPipeline);
}
