//===- Pipeline.cpp - The compile pipeline, defined once ------------------===//

#include "driver/Pipeline.h"

#include "ir/Namespaces.h"
#include "passes/PassOptionChecks.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::spmd;

namespace spmd::driver {

/// Adds the pass of `phase`, if the options ask for it.
static void addPhase(OpPassManager &pm, const PipelineOptions &options,
                     Phase phase) {
  switch (phase) {
  case Phase::MeshConfig:
    if (!options.meshConfig.empty())
      pm.addPass(
          createSpmdMeshConfig(SpmdMeshConfigOptions{options.meshConfig}));
    return;
  case Phase::Import:
    pm.addPass(createSpmdImport());
    if (options.oneDevice)
      pm.addPass(createSpmdDropShardings());
    return;
  case Phase::AutoShard:
    if (options.autoShard) {
      SpmdAutoShardOptions autoShard;
      autoShard.memoryBudget = options.memoryBudget;
      autoShard.dcnCost = options.dcnCost;
      autoShard.report = options.autoShardReport;
      pm.addPass(createSpmdAutoShard(autoShard, options.autoShardReportSink));
    }
    return;
  case Phase::Propagate:
    pm.addPass(createSpmdPropagate());
    return;
  case Phase::Partition:
    pm.addPass(createSpmdPartition());
    return;
  case Phase::OptimizeCollectives:
    pm.addPass(createSpmdOptimizeCollectives());
    return;
  case Phase::Fuse:
    pm.addPass(createSpmdLowerTosa());
    pm.addPass(createSpmdChannelsLast());
    pm.addPass(createSpmdFuseElementwise());
    pm.addPass(createSpmdRaiseLayerNorm());
    pm.addPass(createSpmdFuseConvolutions());
    pm.addPass(createSpmdSinkRemade());
    return;
  }
  llvm_unreachable("a phase without passes");
}

void buildPipeline(OpPassManager &pm, const PipelineOptions &options,
                   Phase first, Phase last) {
  assert(first <= last && "phases run in order");
  for (int phase = int(first); phase <= int(last); ++phase)
    addPhase(pm, options, Phase(phase));
}

void buildReferencePipeline(OpPassManager &pm, ReferenceForm form,
                            double halfWidth, StringRef entry) {
  if (form != ReferenceForm::AsWritten)
    pm.addPass(createSpmdWidenFloats());
  if (form == ReferenceForm::ErrorScales)
    pm.addPass(createSpmdAddErrorScales(
        SpmdAddErrorScalesOptions{halfWidth, entry.str()}));
  addPhase(pm, PipelineOptions(), Phase::Fuse);
}

void registerSpmdPipeline() {
  // PassPipelineRegistration, with the options checked first: a bad value
  // is one error naming it (llvm::cl's own message has no error line).
  registerPassPipeline(
      "spmd-pipeline",
      "Mesh config, import, (auto-shard,) propagate, partition, optimize "
      "collectives, in that order",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        CheckedOption checks[] = {{"mesh-config", anyValue()},
                                  {"auto-shard", boolean(), true},
                                  {"memory-budget", memoryBudgetCheck()},
                                  {"dcn-cost", dcnCostCheck()},
                                  {"auto-shard-report", anyValue()},
                                  {"one-device", boolean(), true}};
        PipelineOptions options;
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
        buildPipeline(pm, options, Phase::MeshConfig,
                      Phase::OptimizeCollectives);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(PipelineOptions());
      });
}

} // namespace spmd::driver
