//===- Compile.cpp - A program compiled for the devices -------------------===//

#include "driver/Compile.h"

#include "ir/Locations.h"
#include "ir/SpmdDialect.h"
#include "ir/SpmdOps.h"
#include "runtime/exec/Check.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace spmd::driver {

/// Runs the passes `build` adds on `module`, errors collected as
/// runPipeline says; warnings go on to the caller's handler (if any).
static llvm::Error runPasses(ModuleOp module,
                             llvm::function_ref<void(PassManager &)> build) {
  std::string messages;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Warning)
      return failure();
    if (d.getSeverity() != DiagnosticSeverity::Error)
      return success();
    if (!messages.empty())
      messages += "\n";
    messages += mlir::spmd::describeDiagnostic(d);
    return success();
  });
  PassManager pm(module.getContext());
  build(pm);
  if (failed(pm.run(module)))
    return llvm::createStringError(llvm::StringRef(messages).rtrim());
  return llvm::Error::success();
}

llvm::Error runPipeline(ModuleOp module, const PipelineOptions &options,
                        Phase first, Phase last) {
  return runPasses(module, [&](PassManager &pm) {
    buildPipeline(pm, options, first, last);
  });
}

/// The longest reduction of `module`'s linalg ops, in elements.
static int64_t longestReduction(ModuleOp module) {
  int64_t longest = 1;
  module->walk([&](linalg::LinalgOp op) {
    int64_t length = 1;
    for (auto [range, iterator] :
         llvm::zip(op.getStaticLoopRanges(), op.getIteratorTypesArray()))
      if (iterator == utils::IteratorType::reduction && range > 0)
        length *= range;
    longest = std::max(longest, length);
  });
  return longest;
}

/// The largest ulp at 1 of the narrow floats (f16, bf16, f32) `module`
/// computes in; 0 if it computes in f64 only. A rounding error of scale m
/// reaches about this times m (the check's slack).
static double narrowestEpsilon(ModuleOp module) {
  double epsilon = 0;
  module->walk([&](Operation *op) {
    for (Type type : op->getResultTypes()) {
      Type element = getElementTypeOrSelf(type);
      if (!isa<Float16Type, BFloat16Type, Float32Type>(element))
        continue;
      llvm::Expected<runtime::ElementType> dtype =
          runtime::elementTypeOf(element);
      if (!dtype)
        llvm::consumeError(dtype.takeError());
      else
        epsilon = std::max(epsilon, runtime::epsilonOf(*dtype));
    }
  });
  return epsilon;
}

/// The most loop iterations of linalg ops a program computing error scales
/// may have (a 512^3 matmul; the executor runs its contractions as generic
/// bodies): larger programs take the slack from absolute values instead.
static constexpr uint64_t kMaxScaledIterations = uint64_t(1) << 27;

/// The loop iterations of the linalg ops of `module`, each op counted once.
static uint64_t structuredIterations(ModuleOp module) {
  uint64_t total = 0;
  module.walk([&](linalg::LinalgOp op) {
    uint64_t iterations = 1;
    for (int64_t range : op.getStaticLoopRanges())
      if (!ShapedType::isDynamic(range))
        iterations = llvm::SaturatingMultiply(iterations, uint64_t(range));
    total = llvm::SaturatingAdd(total, iterations);
  });
  return total;
}

/// `global` in `form`, or null where it has no such form.
static OwningOpRef<ModuleOp> referenceOf(ModuleOp global, ReferenceForm form,
                                         double halfWidth, StringRef entry) {
  OwningOpRef<ModuleOp> module = global.clone();
  if (llvm::Error err = runPasses(*module, [&](PassManager &pm) {
        buildReferencePipeline(pm, form, halfWidth, entry);
      })) {
    llvm::consumeError(std::move(err));
    return nullptr;
  }
  return module;
}

/// The mesh of the first manual region inside `op`, or null.
static FlatSymbolRefAttr firstRegionMesh(Operation *op) {
  FlatSymbolRefAttr mesh;
  op->walk([&](mlir::spmd::ManualComputationOp region) {
    mesh = region.getMesh();
    return WalkResult::interrupt();
  });
  return mesh;
}

/// `region`'s boundary over its manual axes only: its body then runs whole
/// over the free axes.
static void keepManualAxesOnly(mlir::spmd::ManualComputationOp region) {
  MLIRContext *context = region.getContext();
  auto manualParts = [&](ArrayAttr shardings) {
    SmallVector<Attribute> parts;
    for (Attribute sharding : shardings)
      parts.push_back(mlir::spmd::ShardingAttr::get(
          context,
          region.manualPart(llvm::cast<mlir::spmd::ShardingAttr>(sharding))));
    return ArrayAttr::get(context, parts);
  };
  region.setInShardingsAttr(manualParts(region.getInShardings()));
  region.setOutShardingsAttr(manualParts(region.getOutShardings()));
}

/// Every tensor of `module` replicated, but at the boundaries of its manual
/// regions, which keep their manual axes: function arguments and results
/// and op results say so (propagation keeps what is written), sharding
/// constraints go. Each function is replicated on the mesh of its first
/// region (or of the module's first).
static void replicateAllButManualBoundaries(ModuleOp module) {
  using namespace mlir::spmd;
  MLIRContext *context = module.getContext();
  StringRef name = SpmdDialect::kShardingAttrName;
  FlatSymbolRefAttr moduleMesh = firstRegionMesh(module);
  for (auto function : module.getOps<func::FuncOp>()) {
    FlatSymbolRefAttr mesh = firstRegionMesh(function);
    if (!mesh)
      mesh = moduleMesh;
    auto replicated = [&](Type type) {
      auto tensor = llvm::dyn_cast<RankedTensorType>(type);
      return ShardingAttr::get(
          context, ::spmd::TensorSharding::replicatedOf(
                       mesh.getValue().str(), tensor ? tensor.getRank() : 0));
    };
    for (auto [i, type] : llvm::enumerate(function.getArgumentTypes()))
      if (llvm::isa<RankedTensorType>(type))
        function.setArgAttr(i, name, replicated(type));
    for (auto [i, type] : llvm::enumerate(function.getResultTypes()))
      if (llvm::isa<RankedTensorType>(type))
        function.setResultAttr(i, name, replicated(type));
    function.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto region = llvm::dyn_cast<ManualComputationOp>(op)) {
        keepManualAxesOnly(region);
        return WalkResult::skip();
      }
      if (auto constraint = llvm::dyn_cast<ShardingConstraintOp>(op)) {
        constraint.getResult().replaceAllUsesWith(constraint.getInput());
        constraint.erase();
        return WalkResult::skip();
      }
      if (op != function &&
          llvm::any_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>)) {
        SmallVector<ShardingAttr> shardings;
        for (Type type : op->getResultTypes())
          shardings.push_back(replicated(type));
        op->setAttr(name, ShardingPerValueAttr::get(context, shardings));
      }
      return WalkResult::advance();
    });
  }
}

/// The reference of a program with manual regions (ReferenceModules):
/// partitioned with nothing split but the regions' manual axes, so it
/// checks the automatic partitioning around and inside them (not the
/// collectives the user wrote, which run alike in both).
static llvm::Expected<runtime::ReferenceModules>
buildReplicatedReference(ModuleOp global, StringRef entry) {
  OwningOpRef<ModuleOp> module = global.clone();
  replicateAllButManualBoundaries(*module);
  llvm::Expected<std::unique_ptr<runtime::LoadedProgram>> program =
      compile(std::move(module), entry, PipelineOptions(), {},
              /*inOneProcess=*/true);
  if (!program)
    return llvm::createStringError(
        "the replicated reference of the program does not compile for a "
        "check: " +
        llvm::toString(program.takeError()));
  runtime::ReferenceModules modules;
  modules.onDevices = std::move(*program);
  return modules;
}

/// The unpartitioned programs of `global` a check runs
/// (runtime/exec/LoadedProgram.h).
static llvm::Expected<runtime::ReferenceModules>
buildReferences(ModuleOp global, StringRef entry) {
  if (firstRegionMesh(global))
    return buildReplicatedReference(global, entry);
  runtime::ReferenceModules modules;
  modules.global = referenceOf(global, ReferenceForm::AsWritten, 0, entry);
  if (!modules.global)
    return llvm::createStringError("the unpartitioned program does not "
                                   "compile for a check");
  double epsilon = narrowestEpsilon(global);
  if (epsilon > 0) {
    modules.wide = referenceOf(global, ReferenceForm::Widened, 0, entry);
    if (!modules.wide)
      return modules; // no f64 form: no scales either
  }
  if (structuredIterations(global) <= kMaxScaledIterations)
    modules.scaled =
        referenceOf(global, ReferenceForm::ErrorScales, epsilon, entry);
  return modules;
}

llvm::Expected<std::unique_ptr<runtime::LoadedProgram>>
compile(OwningOpRef<ModuleOp> module, llvm::StringRef entry,
        const PipelineOptions &options,
        llvm::function_ref<void(ModuleOp)> onPartitioned, bool inOneProcess) {
  if (!runtime::findEntry(*module, entry))
    return llvm::createStringError(entry.empty()
                                       ? "the module has no entry function"
                                       : "no function @" + entry.str());
  if (llvm::Error err =
          runPipeline(*module, options, Phase::MeshConfig, Phase::MeshConfig))
    return std::move(err);
  runtime::CompileFacts facts;
  facts.inOneProcess = inOneProcess;
  bool partitioned =
      (*module)->hasAttr(mlir::spmd::SpmdDialect::kPartitionedAttrName);
  if (!partitioned) {
    if (llvm::Error err =
            runPipeline(*module, options, Phase::Import, Phase::AutoShard))
      return std::move(err);
    // Sizes checked on the global program, before partitioning spends time
    // on one that cannot run.
    if (llvm::Error err = runtime::checkTensorSizes(*module))
      return std::move(err);
    // The unpartitioned program, kept for checks and compiled when one first
    // runs: most runs check nothing, and compiling it (three times, with the
    // f64 forms) copies every constant of a model three times more.
    facts.longestReduction = longestReduction(*module);
    auto global = std::make_shared<OwningOpRef<ModuleOp>>(module->clone());
    facts.reference =
        [global, name = runtime::findEntry(*module, entry).getSymName().str()] {
          return buildReferences(**global, name);
        };
    if (!module->getOps<mlir::spmd::MeshOp>().empty())
      if (llvm::Error err = runPipeline(*module, options, Phase::Propagate,
                                        Phase::OptimizeCollectives))
        return std::move(err);
  }
  if (onPartitioned)
    onPartitioned(*module);
  FailureOr<mlir::spmd::CommReport> report =
      mlir::spmd::buildCommReport(*module);
  if (succeeded(report)) {
    facts.commReport = report->toJson();
    for (const mlir::spmd::CollectiveTraffic &c : report->collectives)
      facts.collectiveBytes.push_back({c.kind, c.commBytes});
  }
  if (llvm::Error err = runPipeline(*module, options, Phase::Fuse, Phase::Fuse))
    return std::move(err);
  return runtime::LoadedProgram::load(*module, entry, std::move(facts));
}

} // namespace spmd::driver
