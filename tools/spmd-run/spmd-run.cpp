//===- spmd-run.cpp - Run a module on all local devices -------------------===//
//
//   spmd-run FILE.mlir [--entry=NAME] [--devices=N] [--mesh-config=FILE]
//            [--seed=S] [--inputs=DIR] [--outputs=DIR] [--check]
//            [--iters=K] [--report=FILE] [--threads-per-device=T]
//            [--load-dialect-plugin=LIB ...]
//
// Exit codes: 0 success, 1 check failure or run error, 2 bad input.
//
//===----------------------------------------------------------------------===//

#include "mesh/MeshConfig.h"
#include "passes/Dialects.h"
#include "passes/Passes.h"
#include "passes/UpstreamParserGuard.h"
#include "runtime/Check.h"
#include "runtime/Npy.h"
#include "runtime/Program.h"
#include "tools/DebugOptions.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <cmath>
#include <random>
#include <regex>

using namespace spmd::runtime;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<file.mlir>"),
                                      cl::Required);
static cl::opt<std::string> entry("entry", cl::desc("Function to run"),
                                  cl::init(""));
static cl::opt<int64_t>
    devicesFlag("devices",
                cl::desc("Local devices (default: the mesh's device count)"),
                cl::init(0));
static cl::opt<std::string>
    meshConfig("mesh-config", cl::desc("HybridDeviceMesh file replacing @mesh"),
               cl::init(""));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of random inputs"),
                              cl::init(0));
static cl::opt<std::string>
    inputsDir("inputs", cl::desc("Directory of argN.npy"), cl::init(""));
static cl::opt<std::string>
    outputsDir("outputs", cl::desc("Where to write resultN.npy"), cl::init(""));
static cl::opt<bool> check("check",
                           cl::desc("Compare with the unpartitioned program "
                                    "on one device"),
                           cl::init(false));
static cl::opt<int64_t> threadsPerDevice(
    "threads-per-device",
    cl::desc("Threads each device's kernels may use (default: cores / "
             "devices, at least 1)"),
    cl::init(0));
static cl::opt<int64_t> iters("iters", cl::desc("Timed runs (median)"),
                              cl::init(1));
static cl::opt<std::string> reportFile("report", cl::desc("JSON report file"),
                                       cl::init(""));
static cl::list<std::string> dialectPlugins(
    "load-dialect-plugin",
    cl::desc("Load dialects, with their sharding and kernel models, from a "
             "plugin library (as spmd-opt and mlir-opt do)"));

/// Prints an error once: diagnostics of the program already read
/// `file:line:col: error: ...`; other errors are the tool's.
static void printError(const llvm::Twine &message) {
  std::string text = message.str();
  static const std::regex located("^[^ ]+:[0-9]+:[0-9]+: error: ");
  if (!std::regex_search(text, located))
    llvm::errs() << "spmd-run: error: ";
  llvm::errs() << text << "\n";
}

/// A bad input: one error, exit code 2.
[[noreturn]] static void badInput(const llvm::Twine &message) {
  printError(message);
  std::exit(2);
}

static HostTensor randomTensor(const TensorSpec &spec, std::mt19937_64 &rng) {
  HostTensor t(spec.type, spec.shape);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int64_t> small(0, 1);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    if (isFloat(spec.type))
      t.setFloat(i, real(rng));
    else
      t.setInt(i, small(rng));
  }
  return t;
}

static std::string shapeText(const TensorSpec &spec) {
  std::string text = "tensor<";
  for (int64_t s : spec.shape)
    text += std::to_string(s) + "x";
  return text + dtypeName(spec.type).str() + ">";
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  spmd::tools::registerDebugOptions();
  cl::ParseCommandLineOptions(argc, argv,
                              "spmd-run: run a module on all local devices\n");
  auto compileStart = std::chrono::steady_clock::now();

  mlir::DialectRegistry registry;
  mlir::spmd::registerInputDialects(registry);
  for (const std::string &path : dialectPlugins) {
    llvm::Expected<mlir::DialectPlugin> plugin = mlir::DialectPlugin::load(path);
    if (!plugin)
      badInput(llvm::toString(plugin.takeError()));
    plugin->registerDialectRegistryCallbacks(registry);
  }
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics name ops by location, never by a generic-form dump.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  std::string parseErrors;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context, llvm::errs());
  if (!llvm::sys::fs::exists(inputFile))
    badInput("cannot read '" + inputFile + "'");
  if (auto text = llvm::MemoryBuffer::getFile(inputFile))
    if (std::optional<std::string> hazard =
            mlir::spmd::findUpstreamParserHazard((*text)->getBuffer(),
                                                 inputFile))
      badInput(*hazard);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(inputFile, sourceMgr, &context);
  if (!module)
    std::exit(2); // the parser's diagnostics said why

  if (!meshConfig.empty()) {
    llvm::Expected<spmd::HybridDeviceMesh> hybrid =
        spmd::loadMeshConfigFile(meshConfig, /*expectedProcesses=*/1);
    if (!hybrid)
      badInput(llvm::toString(hybrid.takeError()));
    mlir::PassManager pm(&context);
    pm.addPass(mlir::spmd::createSpmdMeshConfig(
        mlir::spmd::SpmdMeshConfigOptions{meshConfig}));
    if (mlir::failed(pm.run(*module)))
      badInput("cannot apply the mesh config '" + meshConfig + "'");
  }

  llvm::Expected<std::unique_ptr<Program>> compiled =
      Program::compile(std::move(module), entry);
  if (!compiled)
    badInput(llvm::toString(compiled.takeError()));
  Program &program = **compiled;
  if (devicesFlag && devicesFlag != program.numDevices())
    badInput(llvm::formatv("the mesh has {0} devices but --devices={1}; a "
                           "mesh larger than the local devices needs more "
                           "processes",
                           program.numDevices(), int64_t(devicesFlag)));
  if (threadsPerDevice < 0)
    badInput("--threads-per-device must be positive");
  if (threadsPerDevice > 0)
    program.setThreadsPerDevice(threadsPerDevice);
  double compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - compileStart)
                         .count();

  // Inputs.
  std::vector<HostTensor> inputs;
  std::mt19937_64 rng(seed);
  for (auto [i, spec] : llvm::enumerate(program.inputs())) {
    if (inputsDir.empty()) {
      inputs.push_back(randomTensor(spec, rng));
      continue;
    }
    llvm::SmallString<128> path(inputsDir);
    llvm::sys::path::append(path, "arg" + std::to_string(i) + ".npy");
    llvm::Expected<HostTensor> read = readNpy(path, spec.type);
    if (!read)
      badInput(llvm::toString(read.takeError()));
    if (read->shape() != llvm::ArrayRef<int64_t>(spec.shape))
      badInput(llvm::Twine(path) + ": shape does not match " + shapeText(spec));
    inputs.push_back(std::move(*read));
  }

  // Timed runs.
  std::vector<double> runTimes;
  std::vector<HostTensor> outputs;
  for (int64_t k = 0; k < std::max<int64_t>(1, iters); ++k) {
    auto start = std::chrono::steady_clock::now();
    llvm::Expected<std::vector<HostTensor>> out = program.run(inputs);
    runTimes.push_back(std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - start)
                           .count());
    if (!out) {
      printError(llvm::toString(out.takeError()));
      return 1;
    }
    outputs = std::move(*out);
  }
  std::sort(runTimes.begin(), runTimes.end());
  double runMs = runTimes[runTimes.size() / 2];
  std::vector<int64_t> peaks = program.peakBytesOfLastRun();
  llvm::outs() << llvm::formatv("compile_ms={0:f3} run_ms={1:f3} devices={2}\n",
                                compileMs, runMs, program.numDevices());

  if (!outputsDir.empty()) {
    llvm::sys::fs::create_directories(outputsDir);
    for (auto [i, out] : llvm::enumerate(outputs)) {
      llvm::SmallString<128> path(outputsDir);
      llvm::sys::path::append(path, "result" + std::to_string(i) + ".npy");
      if (llvm::Error err = writeNpy(path, out))
        badInput(llvm::toString(std::move(err)));
    }
  }

  int exitCode = 0;
  llvm::json::Object checkReport;
  if (check) {
    llvm::Expected<std::vector<HostTensor>> reference =
        program.runGlobal(inputs);
    if (!reference)
      badInput(llvm::toString(reference.takeError()));
    std::vector<HostTensor> wide, magnitude;
    if (program.hasWideGlobalProgram()) {
      llvm::Expected<std::vector<HostTensor>> computed =
          program.runWideGlobal(inputs);
      llvm::Expected<std::vector<HostTensor>> magnitudes =
          program.runWideGlobal(absoluteValues(inputs));
      if (!computed)
        badInput(llvm::toString(computed.takeError()));
      if (!magnitudes)
        badInput(llvm::toString(magnitudes.takeError()));
      wide = std::move(*computed);
      magnitude = std::move(*magnitudes);
    }
    CheckResult checked = checkOutputs(outputs, *reference, wide, magnitude,
                                       program.longestReduction());
    bool pass = checked.pass;
    double maxAbs = checked.maxAbsErr, maxRel = checked.maxRelErr;
    llvm::outs() << llvm::formatv("check: {0} max_abs_err={1:e} "
                                  "max_rel_err={2:e} worst={3:e}\n",
                                  pass ? "PASS" : "FAIL", maxAbs, maxRel,
                                  checked.worst);
    checkReport = llvm::json::Object{{"pass", pass},
                                     {"max_abs_err", maxAbs},
                                     {"max_rel_err", maxRel},
                                     {"worst", checked.worst},
                                     {"f64_reference", !wide.empty()}};
    exitCode = pass ? 0 : 1;
  }

  if (!reportFile.empty()) {
    llvm::json::Array peakArray;
    for (int64_t p : peaks)
      peakArray.push_back(p);
    llvm::json::Object report{
        {"compile_ms", compileMs},
        {"run_ms", runMs},
        {"devices", program.numDevices()},
        {"threads_per_device", program.threadsPerDevice()},
        {"comm", program.commReport()},
        {"peak_buffer_bytes", std::move(peakArray)}};
    if (check)
      report["check"] = std::move(checkReport);
    std::error_code ec;
    llvm::raw_fd_ostream os(reportFile, ec);
    if (ec)
      badInput("cannot write '" + reportFile + "': " + ec.message());
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  }
  return exitCode;
}
