//===- spmd-run.cpp - Run a module on all local devices -------------------===//
//
//   spmd-run FILE.mlir [--entry=NAME] [--devices=N] [--mesh-config=FILE]
//            [--seed=S] [--inputs=DIR] [--outputs=DIR] [--check]
//            [--iters=K] [--warmup=K] [--report=FILE]
//            [--threads-per-device=T]
//            [--mpi-timeout=SECONDS] [--load-dialect-plugin=LIB ...]
//
// Under `mpirun -np P` every process compiles the program and runs its
// block of devices; rank 0 prints, checks and writes the outputs and the
// report. Exit codes: 0 success, 1 check failure or run error, 2 bad input.
//
//===----------------------------------------------------------------------===//

#include "driver/Compile.h"
#include "ir/Locations.h"
#include "mesh/MeshConfig.h"
#include "passes/Dialects.h"
#include "passes/UpstreamParserGuard.h"
#include "runtime/comm/MpiWorld.h"
#include "runtime/exec/Check.h"
#include "runtime/exec/Npy.h"
#include "runtime/exec/RunReport.h"
#include "runtime/exec/Safetensors.h"
#include "runtime/kernels/CpuPath.h"
#include "runtime/kernels/LibraryKernels.h"
#include "runtime/kernels/gemm/GemmKernels.h"
#include "support/Files.h"
#include "tools/CommandLine.h"
#include "tools/DebugOptions.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "support/Machine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <regex>
#include <set>

using namespace spmd::runtime;
namespace cl = llvm::cl;

/// spmd-run's own options: --help lists these, not LLVM's.
static cl::OptionCategory runCategory("spmd-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<file.mlir>"),
                                      cl::init(""), cl::cat(runCategory));
static cl::opt<std::string> entry("entry", cl::desc("Function to run"),
                                  cl::init(""), cl::cat(runCategory));
static cl::opt<int64_t>
    devicesFlag("devices",
                cl::desc("Local devices (default: the mesh's device count)"),
                cl::init(0), cl::cat(runCategory));
static cl::opt<std::string>
    meshConfig("mesh-config", cl::desc("HybridDeviceMesh file replacing @mesh"),
               cl::init(""), cl::cat(runCategory));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of random inputs"),
                              cl::init(0), cl::cat(runCategory));
static cl::opt<std::string>
    inputsDir("inputs",
              cl::desc("Directory of argN.npy, or a .safetensors file of "
                       "tensors named as the arguments (or argN)"),
              cl::init(""), cl::cat(runCategory));
static cl::opt<std::string>
    outputsDir("outputs",
               cl::desc("Where to write resultN.npy, or a .safetensors file "
                        "of tensors resultN"),
               cl::init(""), cl::cat(runCategory));
static cl::opt<std::string> dumpPartitioned(
    "dump-partitioned",
    cl::desc("Write the partitioned program (before the executor's fusion) "
             "to this file"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<bool> check("check",
                           cl::desc("Compare with the unpartitioned program "
                                    "on one device"),
                           cl::init(false), cl::cat(runCategory));
static cl::opt<int64_t> threadsPerDevice(
    "threads-per-device",
    cl::desc("Threads each device's kernels may use (default: cores / "
             "devices, at least 1)"),
    cl::init(0), cl::cat(runCategory));
static cl::opt<int64_t> iters("iters", cl::desc("Timed runs (median)"),
                              cl::init(1), cl::cat(runCategory));
static cl::opt<int64_t>
    warmup("warmup",
           cl::desc("Untimed runs before the timed ones (weights reordered, "
                    "buffers touched)"),
           cl::init(0), cl::cat(runCategory));
static cl::opt<std::string> reportFile("report", cl::desc("JSON report file"),
                                       cl::init(""), cl::cat(runCategory));
static cl::opt<double> mpiTimeout(
    "mpi-timeout",
    cl::desc("Under mpirun: seconds a process waits for another before it "
             "stops naming it (default: SPMD_MPI_TIMEOUT, else 60)"),
    cl::init(0), cl::cat(runCategory));
static cl::opt<std::string> cpuPathFlag(
    "cpu-path",
    cl::desc("Instruction set of the kernels: baseline, avx2 or avx512 "
             "(default: SPMD_CPU_PATH, else the best this CPU supports)"),
    cl::init(""), cl::cat(runCategory));
static cl::opt<bool> printCpuPaths(
    "print-cpu-paths",
    cl::desc("Print the CPU paths this machine supports, best first, and "
             "exit"),
    cl::init(false), cl::cat(runCategory));
static cl::list<std::string> dialectPlugins(
    "load-dialect-plugin",
    cl::desc("Load dialects, with their sharding and kernel models, from a "
             "plugin library (as spmd-opt and mlir-opt do)"),
    cl::cat(runCategory));

/// Prints an error once: diagnostics of the program already read
/// `file:line:col: error: ...`; other errors are the tool's.
static void printError(const llvm::Twine &message) {
  std::string text = message.str();
  static const std::regex located("^[^ ]+(:[0-9]+:[0-9]+)?: error: ");
  if (!std::regex_search(text, located))
    text = "spmd-run: error: " + text;
  // One write: under mpirun the lines of several processes interleave
  // byte by byte otherwise.
  llvm::errs() << text + "\n";
  llvm::errs().flush();
}

/// The processes of the run: null without MPI.
static MpiWorld *world = nullptr;

[[noreturn]] static void runFailed(const llvm::Twine &message);

/// A bad input: one error, exit code 2. Every process meets the same one
/// (they read the same files) and prints it. An error after another process
/// stopped answering (while the program is loaded, say) is that failure.
[[noreturn]] static void badInput(const llvm::Twine &message) {
  if (world && world->broken())
    runFailed(message);
  printError(message);
  if (world)
    world->stop(message.str(), 2);
  std::exit(2);
}

/// A failed run: one error, exit code 1. Under MPI the other processes
/// were told and stop too.
[[noreturn]] static void runFailed(const llvm::Twine &message) {
  printError(message);
  if (world)
    world->announceStop(message.str());
  std::exit(1);
}

/// Whether this process prints and writes: the only one, or rank 0.
static bool leads() { return !world || world->rank() == 0; }

/// The most timed runs: a mistyped count should not run for ever.
static constexpr int64_t kMaxIters = 1000000;

/// A process other than rank 0 after the runs: it waits for rank 0's
/// verdict and ends with it (rank 0 says it is alive while it checks).
[[noreturn]] static void finishOtherRank() {
  int code = 0;
  if (check) {
    llvm::Expected<double> verdict =
        world->maxOverProcesses(0, "waiting for rank 0's check");
    if (!verdict)
      runFailed(llvm::toString(verdict.takeError()));
    code = int(*verdict);
  }
  std::exit(code);
}

static HostBuffer randomTensor(const TensorSpec &spec, std::mt19937_64 &rng) {
  HostBuffer t(spec.type, spec.shape);
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
  return text + elementTypeName(spec.type).str() + ">";
}

/// The value of the environment variable `name`, if set and not empty.
static std::optional<llvm::StringRef> environment(const char *name) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return std::nullopt;
  return llvm::StringRef(value);
}

/// Whether `seconds` is a wait under mpirun may last.
static bool validMpiTimeout(double seconds) {
  // Also refuses NaN and infinities.
  return seconds > 0 && seconds <= MpiWorld::kMaxTimeoutSeconds;
}

/// The environment variables spmd-run reads, checked before any work: an
/// invalid value is bad input, as an invalid flag is. (SPMD_MAX_TENSOR_BYTES
/// is checked where the program is compiled.)
static void checkEnvironment() {
  if (std::optional<llvm::StringRef> forced = environment("SPMD_CPU_PATH")) {
    std::optional<CpuPath> path = parseCpuPath(*forced);
    if (!path)
      badInput("SPMD_CPU_PATH=" + *forced +
               " is not one of baseline, avx2, avx512");
    if (!cpuPathSupported(*path))
      badInput("SPMD_CPU_PATH=" + *forced + ": this CPU cannot run it");
  }
  if (llvm::Expected<int64_t> limit = maxLocalDevices(); !limit)
    badInput(llvm::toString(limit.takeError()));
  if (std::optional<llvm::StringRef> timeout =
          environment("SPMD_MPI_TIMEOUT")) {
    // Read as MpiWorld reads it.
    std::string text = timeout->str();
    char *end = nullptr;
    double seconds = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end || !validMpiTimeout(seconds))
      badInput(llvm::formatv("SPMD_MPI_TIMEOUT={0} is not a number of "
                             "seconds in (0, {1}]",
                             text, int64_t(MpiWorld::kMaxTimeoutSeconds)));
  }
}

/// The flags and environment, checked before any work.
static void checkFlags() {
  if (inputFile.empty())
    badInput("no input file (spmd-run FILE.mlir)");
  if (inputFile == "-")
    badInput("spmd-run reads a program file, not standard input");
  checkEnvironment();
  if (iters.getNumOccurrences() && !(iters >= 1 && iters <= kMaxIters))
    badInput(llvm::formatv("--iters must be positive and at most {0}, not {1}",
                           kMaxIters, int64_t(iters)));
  if (!(warmup >= 0 && warmup <= kMaxIters))
    badInput(
        llvm::formatv("--warmup must be at least 0 and at most {0}, not {1}",
                      kMaxIters, int64_t(warmup)));
  // More threads than that start nothing but contention (and Eigen's pool
  // counts them in an int).
  if (threadsPerDevice.getNumOccurrences() &&
      !(threadsPerDevice >= 1 && threadsPerDevice <= kMaxThreadsPerDevice))
    badInput(llvm::formatv("--threads-per-device must be positive and at "
                           "most {0}, not {1}",
                           kMaxThreadsPerDevice, int64_t(threadsPerDevice)));
  if (!cpuPathFlag.empty()) {
    std::optional<CpuPath> path = parseCpuPath(cpuPathFlag);
    if (!path)
      badInput("--cpu-path must be baseline, avx2 or avx512, not '" +
               cpuPathFlag + "'");
    if (!setCpuPath(*path))
      badInput("--cpu-path=" + cpuPathFlag + ": this CPU cannot run it");
  }
}

/// The processes of the run (under mpirun), with the flag's timeout.
static void joinProcesses() {
  world = MpiWorld::get(mpiTimeout.getNumOccurrences()
                            ? std::optional<double>(mpiTimeout)
                            : std::nullopt);
  if (world && world->size() == 1)
    world = nullptr;
  if (mpiTimeout.getNumOccurrences() && !validMpiTimeout(mpiTimeout))
    badInput(llvm::formatv("--mpi-timeout must be a number of seconds in "
                           "(0, {0}]",
                           int64_t(MpiWorld::kMaxTimeoutSeconds)));
  if (world && mpiTimeout.getNumOccurrences())
    world->setTimeoutSeconds(mpiTimeout);
}

/// The dialects programs may use: the input dialects and the plugins'.
static mlir::DialectRegistry dialects() {
  mlir::DialectRegistry registry;
  mlir::spmd::registerInputDialects(registry);
  for (const std::string &path : dialectPlugins) {
    if (llvm::Error error = spmd::tools::checkPluginFile(path))
      badInput(llvm::toString(std::move(error)));
    llvm::Expected<mlir::DialectPlugin> plugin = mlir::DialectPlugin::load(path);
    if (!plugin)
      badInput(llvm::toString(plugin.takeError()));
    plugin->registerDialectRegistryCallbacks(registry);
  }
  return registry;
}

/// The entry's argument names in the source (without `%`), by position;
/// empty where the source names none.
static std::vector<std::string> argumentNames;

/// Reads the argument names of the entry of `module`: each argument's
/// location points at its name in the source.
static void recordArgumentNames(llvm::SourceMgr &sourceMgr,
                                mlir::ModuleOp module) {
  mlir::func::FuncOp function = findEntry(module, entry);
  if (!function || function.isExternal())
    return;
  for (mlir::BlockArgument arg : function.getArguments()) {
    std::string name;
    unsigned buffer = sourceMgr.getMainFileID();
    auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(arg.getLoc());
    // An explicit loc(...) names another file: no name then.
    if (loc && loc.getFilename() ==
                   sourceMgr.getMemoryBuffer(buffer)->getBufferIdentifier()) {
      llvm::SMLoc at = sourceMgr.FindLocForLineAndColumn(buffer, loc.getLine(),
                                                         loc.getColumn());
      const llvm::MemoryBuffer *text = sourceMgr.getMemoryBuffer(buffer);
      llvm::StringRef rest =
          at.getPointer()
              ? llvm::StringRef(at.getPointer(),
                                text->getBufferEnd() - at.getPointer())
              : llvm::StringRef();
      if (rest.consume_front("%"))
        name = rest.take_while([](char c) {
                     return llvm::isAlnum(c) || c == '_' || c == '$' ||
                            c == '.' || c == '-';
                   })
                   .str();
    }
    argumentNames.push_back(std::move(name));
  }
}

/// What `path` holds, cheaply: its size, its first 64 KiB (a safetensors or
/// .npy header) and 16 pages spread over the rest. Processes that each read
/// only their shards cannot compare whole files; different files differ
/// here unless they differ only between the pages.
static void describeFile(llvm::StringRef path, llvm::raw_ostream &os) {
  uint64_t size = 0;
  if (llvm::sys::fs::file_size(path, size))
    return; // reported where it is read
  os << llvm::sys::path::filename(path) << '\0' << size << '\0';
  llvm::Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!file)
    return llvm::consumeError(file.takeError());
  auto readAt = [&](uint64_t offset, size_t bytes) {
    std::string buffer(std::min<uint64_t>(bytes, size - offset), '\0');
    llvm::Expected<size_t> read = llvm::sys::fs::readNativeFileSlice(
        *file, llvm::MutableArrayRef<char>(buffer.data(), buffer.size()),
        offset);
    if (read)
      os << llvm::StringRef(buffer.data(), *read);
    else
      llvm::consumeError(read.takeError());
  };
  constexpr uint64_t kHead = 64 << 10, kPage = 4096, kPages = 16;
  readAt(0, kHead);
  if (size > kHead)
    for (uint64_t page = 0; page < kPages; ++page)
      readAt(kHead + (size - kHead) / kPages * page, kPage);
  llvm::sys::fs::closeFile(*file);
}

/// The --inputs of this process, described for comparison (describeFile):
/// the safetensors file, or each argN.npy of the folder (what runs read) in
/// name order.
static std::string describeInputs() {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (inputsDir.empty())
    return text;
  // This process's own error, not a difference between the processes.
  if (!llvm::sys::fs::exists(inputsDir))
    badInput("--inputs: '" + inputsDir + "' does not exist");
  if (!llvm::sys::fs::is_directory(inputsDir)) {
    describeFile(inputsDir, os);
    return text;
  }
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(inputsDir, ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::Regex("^arg[0-9]+\\.npy$")
            .match(llvm::sys::path::filename(it->path())))
      files.push_back(it->path());
  llvm::sort(files);
  for (const std::string &file : files)
    describeFile(file, os);
  return text;
}

/// Under mpirun: every process was given the same program (`programHash`
/// of its text, `module` parsed), mesh config, input files (describeInputs)
/// and the flags that decide what runs and what is exchanged, as they resolve
/// (`--entry` naming the default entry is that entry; a seed with `--inputs`
/// draws nothing). Processes given other ones exchanged garbage (other random
/// inputs, say) or timed out. `--devices` is checked against each process's
/// share.
static void checkSameRun(uint64_t programHash, mlir::ModuleOp module) {
  if (!world)
    return;
  std::string run;
  llvm::raw_string_ostream os(run);
  os << programHash << '\0';
  if (!meshConfig.empty()) {
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> config =
        spmd::readRegularFile(meshConfig, spmd::kMaxMeshConfigBytes,
                              "mesh config");
    if (config)
      os << (*config)->getBuffer();
    else
      llvm::consumeError(config.takeError()); // reported where it is read
  }
  mlir::func::FuncOp function = spmd::runtime::findEntry(module, entry);
  os << '\0' << (function ? function.getSymName() : llvm::StringRef(entry))
     << '\0' << (inputsDir.empty() ? seed : 0) << ' ' << iters << ' ' << warmup
     << ' ' << check << ' ' << inputsDir.empty() << '\0' << describeInputs();
  llvm::Expected<bool> same =
      world->sameOnEveryProcess(llvm::xxh3_64bits(run), "comparing the runs");
  if (!same)
    runFailed(llvm::toString(same.takeError()));
  if (!*same)
    badInput("the processes were given different programs, mesh configs, "
             "flags (--entry, --seed, --iters, --warmup, --check, --inputs) "
             "or input files: under mpirun every process runs the same");
}

/// The program of the input file, parsed in `context`.
static mlir::OwningOpRef<mlir::ModuleOp> parseProgram(mlir::MLIRContext &context) {
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context, llvm::errs());
  if (!llvm::sys::fs::exists(inputFile))
    badInput("cannot read '" + inputFile + "'");
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> text =
      spmd::tools::readProgramFile(inputFile);
  if (!text)
    badInput(llvm::toString(text.takeError()));
  if (std::optional<std::string> hazard =
          mlir::spmd::findUpstreamParserHazard((*text)->getBuffer(), inputFile))
    badInput(*hazard);
  uint64_t programHash = llvm::xxh3_64bits((*text)->getBuffer());
  sourceMgr.AddNewSourceBuffer(std::move(*text), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr,
                                            mlir::ParserConfig(&context));
  if (!module) {
    // The parser's diagnostics said why; the other processes are told.
    if (world)
      world->stop("its program does not parse", 2);
    std::exit(2);
  }
  recordArgumentNames(sourceMgr, *module);
  checkSameRun(programHash, *module);
  return module;
}

/// `module` compiled by the driver for the devices.
static std::unique_ptr<LoadedProgram>
compileProgram(mlir::OwningOpRef<mlir::ModuleOp> module) {
  spmd::driver::PipelineOptions pipeline;
  if (!meshConfig.empty()) {
    // Checked against the processes here: the pass knows none.
    llvm::Expected<spmd::HybridDeviceMesh> hybrid =
        spmd::loadMeshConfigFile(meshConfig,
                                 /*expectedProcesses=*/world ? world->size()
                                                             : 1);
    if (!hybrid)
      badInput(llvm::toString(hybrid.takeError()));
    pipeline.meshConfig = meshConfig;
  }
  llvm::Error dumpError = llvm::Error::success();
  auto dump = [&](mlir::ModuleOp partitioned) {
    if (!dumpPartitioned.empty() && leads())
      dumpError = spmd::writeFile(dumpPartitioned, "partitioned program",
                                  [&](llvm::raw_ostream &os) {
                                    partitioned.print(os);
                                  });
  };
  // The passes' warnings, once each, by one process.
  std::set<std::string> warned;
  mlir::ScopedDiagnosticHandler warnings(
      module->getContext(), [&](mlir::Diagnostic &d) {
        if (d.getSeverity() != mlir::DiagnosticSeverity::Warning || !leads())
          return mlir::success();
        std::string text = mlir::spmd::fileLineColPrefix(d.getLocation()) +
                           "warning: " + d.str();
        if (warned.insert(text).second)
          llvm::errs() << text << "\n";
        return mlir::success();
      });
  llvm::Expected<std::unique_ptr<LoadedProgram>> compiled =
      spmd::driver::compile(std::move(module), entry, pipeline, dump);
  if (dumpError)
    badInput(llvm::toString(std::move(dumpError)));
  if (!compiled)
    badInput(llvm::toString(compiled.takeError()));
  LoadedProgram &program = **compiled;
  if (devicesFlag && devicesFlag != program.numLocalDevices())
    badInput(llvm::formatv(
        "the mesh has {0} devices{1} but --devices={2}; a "
        "mesh larger than the local devices needs more "
        "processes",
        program.numDevices(),
        world ? llvm::formatv(", {0} per process", program.numLocalDevices())
                    .str()
              : "",
        int64_t(devicesFlag)));
  if (threadsPerDevice > 0)
    program.setThreadsPerDevice(threadsPerDevice);
  return std::move(*compiled);
}

/// Whether --inputs or --outputs names a safetensors file (else a folder of
/// .npy files).
static bool isSafetensorsFile(llvm::StringRef path) {
  return path.ends_with(".safetensors");
}

/// A safetensors file of inputs, mapped: only the pages of a process's
/// shards are read.
class SafetensorsInputs {
public:
  explicit SafetensorsInputs(llvm::StringRef path) : path(path) {
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> read =
        spmd::readRegularFile(path, std::numeric_limits<int64_t>::max(),
                              "safetensors file");
    if (!read)
      badInput(llvm::Twine(path) + ": " + llvm::toString(read.takeError()));
    file = std::move(*read);
    llvm::Expected<std::vector<SafetensorsEntry>> parsed =
        parseSafetensorsEntries(file->getBuffer(), path);
    if (!parsed)
      badInput(llvm::toString(parsed.takeError()));
    for (SafetensorsEntry &entry : *parsed)
      entries.try_emplace(entry.name, std::move(entry));
  }

  /// The data of argument `index`: the tensor of its name, else argN.
  const uint8_t *argument(unsigned index, const TensorSpec &spec) const {
    std::string byPosition = "arg" + std::to_string(index);
    std::string byName =
        index < argumentNames.size() ? argumentNames[index] : "";
    auto it = entries.find(byName.empty() ? byPosition : byName);
    if (it == entries.end())
      it = entries.find(byPosition);
    if (it == entries.end())
      badInput(llvm::formatv(
          "{0}: no tensor '{1}'{2} for argument {3}", path, byPosition,
          byName.empty() ? "" : " or '" + byName + "'", index));
    const SafetensorsEntry &entry = it->second;
    llvm::Expected<ElementType> held = heldType(entry, path);
    if (!held)
      badInput(llvm::toString(held.takeError()));
    // index arguments read I64 tensors, of the same bytes.
    ElementType type =
        spec.type == ElementType::Index ? ElementType::I64 : spec.type;
    if (*held != type || entry.shape != spec.shape)
      badInput(llvm::formatv(
          "{0}: tensor '{1}' is {2}[{3}], argument {4} "
          "needs {5}",
          path, entry.name, elementTypeName(*held),
          llvm::make_range(entry.shape.begin(), entry.shape.end()), index,
          shapeText(spec)));
    const uint8_t *data =
        reinterpret_cast<const uint8_t *>(file->getBufferStart()) +
        entry.offset;
    if (llvm::Error err =
            checkSafetensorsValues(*held, data, entry.bytes, path, entry.name))
      badInput(llvm::toString(std::move(err)));
    return data;
  }

private:
  std::string path;
  std::unique_ptr<llvm::MemoryBuffer> file;
  llvm::StringMap<SafetensorsEntry> entries;
};

/// The inputs: each local device's shards in `perDevice`, and the whole
/// tensors where the check needs them (returned). Under MPI a process reads
/// from an input file only where its shards lie (random inputs are drawn
/// whole, in one sequence).
static std::vector<HostBuffer>
readInputs(const LoadedProgram &program,
           std::vector<std::vector<TensorRef>> &perDevice) {
  bool needWhole = leads() && check;
  std::vector<HostBuffer> inputs;
  perDevice.assign(program.numLocalDevices(), {});
  auto addShards = [&](std::vector<TensorRef> shards) {
    for (auto [index, shard] : llvm::enumerate(shards))
      perDevice[index].push_back(std::move(shard));
  };
  std::mt19937_64 rng(seed);
  std::optional<SafetensorsInputs> named;
  if (isSafetensorsFile(inputsDir))
    named.emplace(inputsDir);
  for (auto [i, spec] : llvm::enumerate(program.inputs())) {
    if (named) {
      const uint8_t *data = named->argument(i, spec);
      addShards(program.shard(i, data));
      if (needWhole) {
        HostBuffer whole(spec.type, spec.shape, Init::None);
        std::memcpy(whole.data(), data, whole.sizeInBytes());
        inputs.push_back(std::move(whole));
      }
      continue;
    }
    if (inputsDir.empty()) {
      HostBuffer whole = randomTensor(spec, rng);
      addShards(program.shard(i, whole));
      if (needWhole)
        inputs.push_back(std::move(whole));
      continue;
    }
    llvm::SmallString<128> path(inputsDir);
    llvm::sys::path::append(path, "arg" + std::to_string(i) + ".npy");
    if (world && !needWhole) {
      // Mapped where large, not read: only the pages of this process's
      // shards are.
      llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
          spmd::readRegularFile(path, kMaxNpyHeaderBytes + maxTensorBytes(),
                                ".npy file");
      if (!file)
        badInput(llvm::Twine(path) + ": " + llvm::toString(file.takeError()));
      llvm::Expected<NpyView> view = parseNpyHeader((*file)->getBuffer(), path);
      if (!view)
        badInput(llvm::toString(view.takeError()));
      if (view->type == spec.type) {
        if (view->shape != spec.shape)
          badInput(llvm::Twine(path) + ": shape does not match " +
                   shapeText(spec));
        addShards(program.shard(i, view->data));
        continue;
      }
      // Of a type to convert: read whole, as below.
    }
    llvm::Expected<HostBuffer> read =
        readNpy(path, spec.type, maxTensorBytes());
    if (!read)
      badInput(llvm::toString(read.takeError()));
    if (read->shape() != llvm::ArrayRef<int64_t>(spec.shape))
      badInput(llvm::Twine(path) + ": shape does not match " + shapeText(spec));
    addShards(program.shard(i, *read));
    if (needWhole)
      inputs.push_back(std::move(*read));
  }
  return inputs;
}

/// The `--warmup` runs, then the timed runs: their median in ms; the
/// outputs of the last in `outputs` (on rank 0), its results on the
/// devices in `results`. Under MPI the processes start each run together; a
/// run lasts as long as its slowest process.
static double timedRuns(LoadedProgram &program,
                        const std::vector<std::vector<TensorRef>> &perDevice,
                        std::vector<HostBuffer> &outputs,
                        std::vector<ShardedBuffer> &results) {
  std::vector<double> runTimes;
  for (int64_t k = 0; k < warmup + iters; ++k) {
    if (world)
      if (llvm::Error err = world->barrier("starting a run"))
        runFailed(llvm::toString(std::move(err)));
    program.clearMpiTraffic();
    auto start = std::chrono::steady_clock::now();
    llvm::Expected<std::vector<ShardedBuffer>> out =
        program.runSharded(perDevice);
    if (!out)
      runFailed(llvm::toString(out.takeError()));
    outputs.clear();
    for (const ShardedBuffer &result : *out) {
      llvm::Expected<HostBuffer> whole =
          program.toHost(result, /*everywhere=*/false);
      if (!whole)
        runFailed(llvm::toString(whole.takeError()));
      outputs.push_back(std::move(*whole));
    }
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    if (world) {
      llvm::Expected<double> slowest = world->maxOverProcesses(ms, "timing");
      if (!slowest)
        runFailed(llvm::toString(slowest.takeError()));
      ms = *slowest;
    }
    if (k >= warmup)
      runTimes.push_back(ms);
    results = std::move(*out);
  }
  std::sort(runTimes.begin(), runTimes.end());
  return runTimes[runTimes.size() / 2];
}

/// Before any run: --outputs can take the results of `program`.
static void checkOutputs(const LoadedProgram &program) {
  if (!leads())
    return;
  if (!isSafetensorsFile(outputsDir)) {
    if (!llvm::sys::fs::is_directory(outputsDir))
      badInput("--outputs: '" + outputsDir + "' is not a folder");
    return;
  }
  llvm::StringRef folder = llvm::sys::path::parent_path(outputsDir);
  if (!folder.empty() && !llvm::sys::fs::is_directory(folder))
    badInput("--outputs: '" + folder + "' is not a folder");
  if (llvm::sys::fs::is_directory(outputsDir))
    badInput("--outputs: '" + outputsDir + "' is a folder, not a file");
  for (auto [i, spec] : llvm::enumerate(program.outputs()))
    if (!safetensorsDType(spec.type))
      badInput(llvm::formatv("--outputs: result {0} is {1}, a type "
                             "safetensors has no name for",
                             i, elementTypeName(spec.type)));
}

static llvm::Error writeOutputs(llvm::ArrayRef<HostBuffer> outputs) {
  if (isSafetensorsFile(outputsDir)) {
    std::vector<SafetensorsTensor> tensors;
    for (auto [i, out] : llvm::enumerate(outputs))
      tensors.push_back({"result" + std::to_string(i), out.type(),
                         out.shape().vec(), out.data()});
    return writeSafetensors(outputsDir, tensors).takeError();
  }
  for (auto [i, out] : llvm::enumerate(outputs)) {
    llvm::SmallString<128> path(outputsDir);
    llvm::sys::path::append(path, "result" + std::to_string(i) + ".npy");
    if (llvm::Error err = writeNpy(path, out))
      return err;
  }
  return llvm::Error::success();
}

/// Every device's buffer of each result (LoadedProgram::shardsOnHost), on
/// rank 0.
static std::vector<std::vector<TensorRef>>
shardsOf(LoadedProgram &program, llvm::ArrayRef<ShardedBuffer> results) {
  std::vector<std::vector<TensorRef>> shards;
  for (const ShardedBuffer &result : results) {
    llvm::Expected<std::vector<TensorRef>> all = program.shardsOnHost(result);
    if (!all)
      runFailed(llvm::toString(all.takeError()));
    shards.push_back(std::move(*all));
  }
  return shards;
}

/// The check of `outputs` against the unpartitioned program, and of the
/// copies of their `shards` against each other, printed; its report in
/// `report`. The exit code: 0 if it passes.
static llvm::Expected<int>
checkRun(LoadedProgram &program, llvm::ArrayRef<HostBuffer> inputs,
         llvm::ArrayRef<HostBuffer> outputs,
         llvm::ArrayRef<std::vector<TensorRef>> shards,
         llvm::json::Object &report) {
  llvm::Expected<CheckResult> result = program.check(inputs, outputs, shards);
  if (!result)
    return result.takeError();
  llvm::outs() << checkSummary(*result);
  report = checkJson(*result);
  return result->pass ? 0 : 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  spmd::tools::registerDebugOptions(&runCategory);
  cl::HideUnrelatedOptions(runCategory);
  spmd::tools::parseCommandLine(
      argc, argv, "spmd-run: run a module on all local devices\n", "spmd-run");
  if (printCpuPaths) {
    for (CpuPath path : {CpuPath::Avx512, CpuPath::Avx2, CpuPath::Baseline})
      if (cpuPathSupported(path))
        llvm::outs() << cpuPathName(path) << "\n";
    return 0;
  }
  checkFlags();
  auto compileStart = std::chrono::steady_clock::now();
  joinProcesses();
  // Before any work: a folder that cannot be made is known now.
  if (!outputsDir.empty() && leads()) {
    llvm::StringRef folder = isSafetensorsFile(outputsDir)
                                 ? llvm::sys::path::parent_path(outputsDir)
                                 : llvm::StringRef(outputsDir);
    if (std::error_code ec = folder.empty()
                                 ? std::error_code()
                                 : llvm::sys::fs::create_directories(folder))
      badInput("cannot create the folder '" + folder + "': " + ec.message());
  }

  mlir::MLIRContext context(dialects());
  context.loadAllAvailableDialects();
  // Diagnostics name ops by location, never by a generic-form dump.
  context.printOpOnDiagnostic(false);
  std::unique_ptr<LoadedProgram> program =
      compileProgram(parseProgram(context));
  double compileMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - compileStart)
                         .count();

  if (!outputsDir.empty())
    checkOutputs(*program);
  std::vector<std::vector<TensorRef>> perDevice;
  std::vector<HostBuffer> inputs = readInputs(*program, perDevice);
  std::vector<HostBuffer> outputs;
  std::vector<ShardedBuffer> results;
  double runMs = timedRuns(*program, perDevice, outputs, results);
  // Every process sends its shards for the check, before the others stop.
  std::vector<std::vector<TensorRef>> shards;
  if (check)
    shards = shardsOf(*program, results);
  results.clear();
  std::vector<int64_t> peaks = program->peakBytesOfLastRun();
  llvm::Expected<llvm::json::Array> mpiReport =
      gatherMpiTraffic(*program, world);
  if (!mpiReport)
    runFailed(llvm::toString(mpiReport.takeError()));
  if (!leads())
    finishOtherRank();
  // The devices are the mesh's (written in the program); they share the
  // cores the process may run on.
  llvm::outs() << llvm::formatv(
      "compile_ms={0:f3} run_ms={1:f3} devices={2} cores={3}", compileMs, runMs,
      program->numDevices(), spmd::availableCores());
  if (world)
    llvm::outs() << " processes=" << world->size();
  llvm::outs() << " cpu_path=" << cpuPathName(cpuPath()) << "\n";
  // Seen before a check that may take long, even through a pipe.
  llvm::outs().flush();
  // Rank 0 alone: the others wait for its verdict meanwhile.
  int exitCode = 0;
  llvm::json::Object checkReport;
  std::optional<std::string> failed;
  auto alone = [&] {
    if (!outputsDir.empty())
      if (llvm::Error err = writeOutputs(outputs)) {
        failed = llvm::toString(std::move(err));
        return;
      }
    if (!check)
      return;
    llvm::Expected<int> code =
        checkRun(*program, inputs, outputs, shards, checkReport);
    if (!code)
      failed = llvm::toString(code.takeError());
    else
      exitCode = *code;
  };
  if (world)
    world->aloneFor(alone);
  else
    alone();
  if (failed)
    badInput(*failed);
  if (world && check) {
    // Every process ends with the check's verdict.
    llvm::Expected<double> verdict =
        world->maxOverProcesses(exitCode, "sharing the check's verdict");
    if (!verdict)
      runFailed(llvm::toString(verdict.takeError()));
  }
  if (reportFile.empty())
    return exitCode;
  llvm::json::Array peakArray;
  for (int64_t p : peaks)
    peakArray.push_back(p);
  llvm::json::Object report{{"compile_ms", compileMs},
                            {"run_ms", runMs},
                            {"devices", program->numDevices()},
                            {"cores", spmd::availableCores()},
                            {"threads_per_device", program->threadsPerDevice()},
                            {"cpu_path", cpuPathName(cpuPath())},
                            {"gemm_isa", gemmKernels().isa},
                            {"gemm_libraries", libraryIsas()},
                            {"comm", program->commReport()},
                            {"peak_buffer_bytes", std::move(peakArray)}};
  if (world) {
    report["processes"] = world->size();
    report["mpi"] = std::move(*mpiReport);
  }
  if (check)
    report["check"] = std::move(checkReport);
  llvm::json::Value value(std::move(report));
  if (llvm::Error err =
          spmd::writeFile(reportFile, "report", [&](llvm::raw_ostream &os) {
            os << llvm::formatv("{0:2}", value) << "\n";
          }))
    badInput(llvm::toString(std::move(err)));
  return exitCode;
}
