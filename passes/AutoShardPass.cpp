//===- AutoShardPass.cpp - spmd-auto-shard --------------------------------===//

#include "ir/FactorSplit.h"
#include "ir/FunctionAttrs.h"
#include "ir/FunctionMesh.h"
#include "ir/Namespaces.h"
#include "ir/ShardingModels.h"
#include "passes/AutoShardProblem.h"
#include "passes/PassOptionChecks.h"
#include "passes/Passes.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <chrono>
#include <cmath>

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDAUTOSHARD
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;
using namespace mlir::spmd;

/// What memory-budget takes, in words.
static constexpr const char *kByteSizeWords =
    "a size in bytes (e.g. 1073741824, 16MB, 2GiB) from 0 to "
    "9223372036854775807";

/// A size in bytes: a number with an optional suffix (B, KB, MB, GB in
/// powers of 1000, KiB, MiB, GiB in powers of 1024).
static std::optional<double> parseByteSize(StringRef text) {
  text = text.trim();
  static const std::pair<StringRef, double> kSuffixes[] = {
      {"KiB", 1024.0},
      {"MiB", 1024.0 * 1024},
      {"GiB", 1024.0 * 1024 * 1024},
      {"KB", 1e3},
      {"MB", 1e6},
      {"GB", 1e9},
      {"B", 1}};
  double scale = 1;
  for (auto [suffix, factor] : kSuffixes)
    if (text.consume_back(suffix)) {
      scale = factor;
      break;
    }
  text = text.trim();
  // Whole byte counts up to INT64_MAX are taken exactly as written (as a
  // double, the largest rounds up to 2^63).
  uint64_t count;
  if (scale == 1 && !text.getAsInteger(10, count))
    return count <= uint64_t(INT64_MAX) ? std::optional<double>(double(count))
                                        : std::nullopt;
  double number;
  if (text.getAsDouble(number) || number < 0 || !std::isfinite(number))
    return std::nullopt;
  // Budgets are int64 counts (so 2^63 and beyond, and sizes whose product
  // overflows, are refused rather than wrapped).
  if (!(number * scale < AutoShardSettings::kBudgetLimit))
    return std::nullopt;
  // The whole bytes it holds: a plan's peak is a whole number of bytes.
  return std::floor(number * scale);
}

namespace {
/// The numeric options and the ranges they take (AutoShardSettings).
struct NumberOption {
  StringRef name;
  double low, high;
  bool lowOpen;
  double AutoShardSettings::*setting;
};
} // namespace

static const NumberOption kNumberOptions[] = {
    {"dcn-cost", 1, AutoShardSettings::kMaxDcnCost, false,
     &AutoShardSettings::dcnCost},
    {"flops-per-second", AutoShardSettings::kMinSpeed,
     AutoShardSettings::kMaxSpeed, false, &AutoShardSettings::flopsPerSecond},
    {"bytes-per-second", AutoShardSettings::kMinSpeed,
     AutoShardSettings::kMaxSpeed, false, &AutoShardSettings::bytesPerSecond},
    {"time-limit", 0, AutoShardSettings::kMaxTimeLimit, true,
     &AutoShardSettings::timeLimit}};

LogicalResult AutoShardSettings::verify(
    function_ref<InFlightDiagnostic()> error) const {
  for (const NumberOption &option : kNumberOptions) {
    double value = this->*option.setting;
    if (!isNumberIn(value, option.low, option.high, option.lowOpen))
      return error() << "spmd-auto-shard: " << option.name << " must be "
                     << numberRange(option.low, option.high, option.lowOpen)
                     << ", not " << formatNumber(value);
  }
  if (!(memoryBudget >= 0 && (memoryBudget <= kBudgetLimit ||
                              memoryBudget ==
                                  std::numeric_limits<double>::infinity())))
    return error() << "spmd-auto-shard: memory-budget must be from 0 to "
                      "9223372036854775807 bytes, not "
                   << formatNumber(memoryBudget);
  return success();
}

/// The checks of spmd-auto-shard's options that llvm::cl would otherwise
/// refuse with its own message, or accept out of range.
static SmallVector<CheckedOption> autoShardOptionChecks() {
  SmallVector<CheckedOption> checks;
  for (const NumberOption &option : kNumberOptions)
    checks.push_back(
        {option.name, numberIn(option.low, option.high, option.lowOpen)});
  checks.push_back({"share-above", integerTo(UINT32_MAX)});
  // Checked where the pass runs (their errors point at the module).
  for (StringRef text : {"memory-budget", "solver", "report"})
    checks.push_back({text, anyValue()});
  return checks;
}

/// The dcn-cost check, shared with spmd-pipeline.
OptionCheck mlir::spmd::dcnCostCheck() {
  return numberIn(1, AutoShardSettings::kMaxDcnCost);
}

/// What memory-budget accepts, shared with spmd-pipeline.
OptionCheck mlir::spmd::memoryBudgetCheck() {
  return [](StringRef value) -> std::optional<std::string> {
    if (value.empty() || parseByteSize(value))
      return std::nullopt;
    return std::string(kByteSizeWords);
  };
}

/// `bytes` for the report: an int64 where it fits (a peak of values of
/// 2^63 bytes or more does not).
static llvm::json::Value reportBytes(double bytes) {
  if (bytes >= 0 && bytes < AutoShardSettings::kBudgetLimit)
    return int64_t(std::llround(bytes));
  // INT64_MAX itself, as a double.
  if (bytes == AutoShardSettings::kBudgetLimit)
    return INT64_MAX;
  return bytes;
}

namespace {

/// The mesh a function is auto-sharded on: that of its first sharding, else
/// the module's only mesh.
FailureOr<MeshOp> meshOf(func::FuncOp function, ModuleOp module) {
  if (FlatSymbolRefAttr symbol = firstShardingMesh(function)) {
    if (auto mesh = module.lookupSymbol<MeshOp>(symbol))
      return mesh;
    return function.emitError("unknown mesh ") << symbol;
  }
  auto meshes = module.getOps<MeshOp>();
  if (meshes.empty())
    return function.emitError(
        "auto-sharding needs a mesh: declare one with spmd.mesh or "
        "--spmd-mesh-config");
  if (std::next(meshes.begin()) != meshes.end())
    return function.emitError("the module has several meshes and no "
                              "sharding of this function names one: "
                              "annotate a value to choose");
  return *meshes.begin();
}

/// Auto-shards `function`, appending its entry to `report`.
LogicalResult shard(func::FuncOp function, const AutoShardSettings &settings,
                    std::chrono::steady_clock::time_point deadline,
                    llvm::json::Array &report) {
  auto start = std::chrono::steady_clock::now();
  auto module = function->getParentOfType<ModuleOp>();
  if (!function.getBody().hasOneBlock()) {
    // Propagation gives such functions their shardings.
    function.emitWarning("auto-sharding skips functions of several blocks");
    return success();
  }
  FailureOr<MeshOp> meshOp = meshOf(function, module);
  if (failed(meshOp))
    return failure();
  MeshInfo mesh{FlatSymbolRefAttr::get(meshOp->getSymNameAttr()),
                meshOp->getMesh().toMesh()};
  SmallVector<bool> dcnAxes(mesh.mesh.rank(), false);
  if (std::optional<ArrayRef<int64_t>> dcn = meshOp->getDcnShape())
    for (auto [a, hosts] : llvm::enumerate(*dcn))
      dcnAxes[a] = hosts > 1;

  FailureOr<AutoShardProblem> problem =
      AutoShardProblem::build(function, mesh, dcnAxes, settings, deadline);
  if (failed(problem))
    return failure();
  double left = std::max(
      0.0, std::chrono::duration<double>(
               deadline - std::chrono::steady_clock::now())
               .count());
  llvm::Expected<ShardingSolution> solution =
      settings.enumerate ? solveExhaustively(problem->problem, left)
                         : solveWithCbc(problem->problem, left);
  if (!solution)
    return function.emitError("auto-sharding found no plan: ")
           << llvm::toString(solution.takeError());
  ArrayRef<unsigned> choice = solution->choice;
  double total = problem->seconds(choice);
  bool cut = problem->nodesCutByTimeLimit > 0 || problem->reshardsEstimated;
  if (cut)
    function.emitWarning("auto-sharding reached its time limit of ")
        << formatNumber(settings.timeLimit)
        << " s while building its problem: "
        << problem->nodesCutByTimeLimit
        << " nodes keep only the replicated strategy and "
        << problem->reshardsEstimated
        << " reshards are costed by their whole target blocks";
  if (solution->status == ShardingSolution::Status::TimeLimit)
    function.emitWarning("auto-sharding stopped at its time limit of ")
        << formatNumber(settings.timeLimit) << " s; the best plan found is used (modelled "
        << total << " s, no plan below "
        << solution->bound + problem->fixedSeconds << " s)";

  // Write the chosen layouts: arguments, op results, then results.
  MLIRContext *context = function.getContext();
  StringRef name = SpmdDialect::kShardingAttrName;
  auto attrOf = [&](ShardState state) {
    return ShardingAttr::get(
        context, toSharding(mesh.mesh, mesh.symbol.getValue(), state));
  };
  Block &body = function.getBody().front();
  llvm::json::Array arguments, results;
  updateArgAttrs(function, [&](unsigned i, NamedAttrList &attrs) {
    Value arg = body.getArgument(i);
    std::optional<ShardState> layout = problem->layout(arg, choice);
    if (problem->isChosen(arg))
      attrs.set(name, attrOf(*layout));
    if (layout)
      arguments.push_back(llvm::json::Object{
          {"index", i},
          {"sharding", describe(mesh.mesh, mesh.symbol.getValue(), *layout)},
          {"chosen", problem->isChosen(arg)}});
  });
  for (Operation &op : body) {
    if (std::optional<ArrayRef<AxisList>> split =
            problem->factorSplit(&op, choice))
      op.setAttr(SpmdDialect::kFactorSplitAttrName,
                 factorSplitAttr(context, mesh.mesh, *split));
    if (op.getNumResults() == 0 || !llvm::all_of(op.getResults(), [&](Value v) {
          return problem->isChosen(v);
        }))
      continue;
    SmallVector<ShardingAttr> shardings;
    for (Value v : op.getResults())
      shardings.push_back(attrOf(*problem->layout(v, choice)));
    op.setAttr(name, ShardingPerValueAttr::get(context, shardings));
  }
  updateResultAttrs(function, [&](unsigned i, NamedAttrList &attrs) {
    std::string sharding;
    bool chosen = false;
    if (auto written = dyn_cast_or_null<ShardingAttr>(attrs.get(name))) {
      sharding = written.toTensorSharding().str();
    } else if (std::optional<ShardState> layout =
                   problem->resultLayout(i, choice)) {
      attrs.set(name, attrOf(*layout));
      sharding = describe(mesh.mesh, mesh.symbol.getValue(), *layout);
      chosen = true;
    } else {
      return; // Left to propagation.
    }
    results.push_back(llvm::json::Object{
        {"index", i}, {"sharding", sharding}, {"chosen", chosen}});
  });

  double compute = problem->computeSeconds(choice);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const ShardingProblem &p = problem->problem;
  llvm::json::Object cost{
      {"total_seconds", total},
      {"compute_seconds", compute},
      {"communication_seconds", total - compute},
      {"peak_memory_bytes", reportBytes(peakMemory(p, choice))}};
  if (std::isfinite(settings.memoryBudget))
    cost["memory_budget_bytes"] = reportBytes(settings.memoryBudget);
  // A cut search is no proof of optimality.
  ShardingSolution::Status status =
      cut ? ShardingSolution::Status::TimeLimit : solution->status;
  report.push_back(llvm::json::Object{
      {"function", function.getSymName()},
      {"mesh", mesh.symbol.getValue()},
      {"arguments", std::move(arguments)},
      {"results", std::move(results)},
      {"cost", std::move(cost)},
      {"solver",
       llvm::json::Object{
           {"name", settings.enumerate ? "enumerate" : "cbc"},
           {"status", stringifyStatus(status)},
           {"bound_seconds", solution->bound + problem->fixedSeconds},
           {"solve_seconds", solution->seconds},
           {"seconds", seconds},
           {"ops", problem->opsModelled},
           {"nodes_before_sharing", problem->nodesBeforeSharing},
           {"nodes", int64_t(p.nodes.size())},
           {"edges", int64_t(p.edges.size())},
           {"live_sets", int64_t(p.liveSets.size())},
           {"nodes_searched", problem->nodesSearched},
           {"cut_by_time_limit",
            llvm::json::Object{
                {"nodes", problem->nodesCutByTimeLimit},
                {"reshards", int64_t(problem->reshardsEstimated)}}}}}});
  // Long runs say what took the time.
  if (seconds > 10)
    function.emitRemark("auto-sharded in ")
        << llvm::formatv("{0:f1}", seconds) << " s (" << p.nodes.size()
        << " nodes, " << p.edges.size() << " edges)";
  return success();
}

struct AutoShardPass : mlir::spmd::impl::SpmdAutoShardBase<AutoShardPass> {
  using SpmdAutoShardBase::SpmdAutoShardBase;
  AutoShardPass(const SpmdAutoShardOptions &options, AutoShardReportSink sink)
      : SpmdAutoShardBase(options), sink(std::move(sink)) {}

  void getDependentDialects(DialectRegistry &registry) const override {
    SpmdAutoShardBase::getDependentDialects(registry);
    registerShardingModels(registry);
  }

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return parseCheckedOptions("spmd-auto-shard", options,
                               autoShardOptionChecks(), errorHandler,
                               [&](auto handler) {
                                 return Pass::initializeOptions(options,
                                                                handler);
                               });
  }

  void runOnOperation() override;

  AutoShardReportSink sink;
};

void AutoShardPass::runOnOperation() {
  ModuleOp module = getOperation();
  AutoShardSettings settings;
  if (!memoryBudget.empty()) {
    std::optional<double> bytes = parseByteSize(memoryBudget);
    if (!bytes) {
      mlir::emitError(module.getLoc(), "spmd-auto-shard: memory-budget '")
          << memoryBudget << "' is not " << kByteSizeWords;
      return signalPassFailure();
    }
    settings.memoryBudget = *bytes;
  }
  if (solver != "cbc" && solver != "enumerate") {
    mlir::emitError(module.getLoc(),
                    "spmd-auto-shard: solver must be cbc or enumerate, not '")
        << solver << "'";
    return signalPassFailure();
  }
  settings.dcnCost = dcnCost;
  settings.flopsPerSecond = flopsPerSecond;
  settings.bytesPerSecond = bytesPerSecond;
  settings.shareAbove = shareAbove;
  settings.timeLimit = timeLimit;
  settings.enumerate = solver == "enumerate";

  FailureOr<llvm::json::Value> value = autoShardModule(module, settings);
  if (failed(value))
    return signalPassFailure();
  if (std::isfinite(settings.memoryBudget)) {
    // The largest budget, 2^63 - 1, is 2^63 as a double.
    int64_t bytes = settings.memoryBudget >= 0x1p63
                        ? std::numeric_limits<int64_t>::max()
                        : int64_t(settings.memoryBudget);
    module->setAttr(
        SpmdDialect::kMemoryBudgetAttrName,
        IntegerAttr::get(IntegerType::get(&getContext(), 64), bytes));
  }
  if (sink)
    sink(*value);
  if (report.empty())
    return;
  if (failed(writeReport(module, *value, report, "auto-sharding report")))
    signalPassFailure();
}

} // namespace

std::unique_ptr<Pass>
mlir::spmd::createSpmdAutoShard(const SpmdAutoShardOptions &options,
                                AutoShardReportSink sink) {
  return std::make_unique<AutoShardPass>(options, std::move(sink));
}

FailureOr<llvm::json::Value>
mlir::spmd::autoShardModule(ModuleOp module,
                            const AutoShardSettings &settings) {
  if (failed(settings.verify([&] { return mlir::emitError(module.getLoc()); })))
    return failure();
  // The time limit bounds the whole module: each function builds and
  // solves in what the ones before it left.
  using Clock = std::chrono::steady_clock;
  Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(settings.timeLimit));
  // Every function is tried, so a budget no plan fits is reported (with
  // the smallest that fits) for each function it is too small for.
  llvm::json::Array functions;
  bool failedAny = false;
  for (auto function : module.getOps<func::FuncOp>())
    if (!function.isExternal())
      failedAny |= failed(shard(function, settings, deadline, functions));
  if (failedAny)
    return failure();
  return llvm::json::Value(
      llvm::json::Object{{"auto_shard", std::move(functions)}});
}
