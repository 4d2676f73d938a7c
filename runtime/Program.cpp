//===- Program.cpp - A module compiled for all local devices --------------===//

#include "runtime/Program.h"
#include "runtime/ErrorScales.h"
#include "runtime/Parallel.h"
#include "runtime/WidenFloats.h"

#include "ir/Locations.h"
#include "ir/SpmdOps.h"
#include "ir/ValueTypes.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>
#include <limits>
#include <unistd.h>

using namespace mlir;

namespace spmd::runtime {

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

func::FuncOp findEntry(ModuleOp module, llvm::StringRef name) {
  if (!name.empty())
    return module.lookupSymbol<func::FuncOp>(name);
  llvm::StringSet<> called;
  module.walk([&](func::CallOp call) { called.insert(call.getCallee()); });
  for (auto function : module.getOps<func::FuncOp>())
    if (!function.isExternal() && !called.contains(function.getSymName()))
      return function;
  return {};
}

static llvm::Expected<TensorSpec> specOf(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  Type element = tensor ? tensor.getElementType() : type;
  llvm::Expected<DType> dtype = dtypeOf(element);
  if (!dtype)
    return dtype.takeError();
  if (tensor && !tensor.hasStaticShape())
    return fail("dynamic shapes are not supported");
  return TensorSpec{*dtype,
                    tensor ? std::vector<int64_t>(tensor.getShape())
                           : std::vector<int64_t>{},
                    /*scalar=*/!tensor};
}

/// The layout of a value of a partitioned function with `sharding`.
static llvm::Expected<std::optional<ShardLayout>>
layoutOf(ModuleOp module, mlir::spmd::ShardingAttr sharding,
         llvm::ArrayRef<int64_t> shape) {
  if (!sharding)
    return std::optional<ShardLayout>();
  auto mesh = module.lookupSymbol<mlir::spmd::MeshOp>(sharding.getMesh());
  if (!mesh)
    return fail("unknown mesh " + sharding.getMesh().getValue());
  llvm::Expected<ShardLayout> layout = ShardLayout::get(
      sharding.toTensorSharding(), mesh.getMesh().toMesh(), shape);
  if (!layout)
    return layout.takeError();
  return std::optional<ShardLayout>(std::move(*layout));
}

/// Kernels take the declared (per-device) type of an entry's argument or
/// result as the size of its buffer: it must be what the value's layout
/// puts on each device (its global shape where unsharded).
static llvm::Error checkLocalType(Type declared,
                                  const std::optional<ShardLayout> &layout,
                                  llvm::ArrayRef<int64_t> globalShape,
                                  const llvm::Twine &what) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(declared);
  if (!tensor)
    return llvm::Error::success();
  SmallVector<int64_t> expected =
      layout ? layout->localShape() : SmallVector<int64_t>(globalShape);
  if (tensor.getShape() == llvm::ArrayRef<int64_t>(expected))
    return llvm::Error::success();
  std::string message;
  llvm::raw_string_ostream os(message);
  os << what << " is declared " << declared << " on each device, but its "
     << "sharding puts [";
  llvm::interleaveComma(expected, os);
  os << "] there";
  return fail(message);
}

/// The errors of a pass pipeline (and their notes), as one error of
/// `file:line:col: error: ...` lines; warnings and remarks are dropped.
static llvm::Error runPasses(ModuleOp module,
                             llvm::function_ref<void(PassManager &)> build) {
  std::string messages;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    if (d.getSeverity() != DiagnosticSeverity::Error)
      return success();
    llvm::raw_string_ostream os(messages);
    if (!messages.empty())
      os << "\n";
    mlir::spmd::printFileLineCol(os, d.getLocation());
    os << ": error: " << d.str();
    for (const Diagnostic &note : d.getNotes()) {
      os << "\n";
      mlir::spmd::printFileLineCol(os, note.getLocation());
      os << ": note: " << note.str();
    }
    return success();
  });
  PassManager pm(module.getContext());
  build(pm);
  if (failed(pm.run(module)))
    return fail(llvm::StringRef(messages).rtrim());
  return llvm::Error::success();
}

/// SPMD_MAX_TENSOR_BYTES if set, else the machine's memory; an invalid
/// value is an error naming it.
static llvm::Expected<int64_t> tensorByteLimit() {
  if (const char *env = std::getenv("SPMD_MAX_TENSOR_BYTES"); env && *env) {
    int64_t limit;
    if (llvm::StringRef(env).getAsInteger(10, limit) || limit < 1)
      return fail(llvm::formatv("SPMD_MAX_TENSOR_BYTES={0} is not an integer "
                                "in [1, {1}]",
                                env, std::numeric_limits<int64_t>::max()));
    return limit;
  }
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  return pages > 0 && pageSize > 0 ? int64_t(pages) * pageSize
                                   : std::numeric_limits<int64_t>::max();
}

int64_t maxTensorBytes() {
  // Programs are compiled with a valid limit: an invalid one was refused.
  llvm::Expected<int64_t> limit = tensorByteLimit();
  if (!limit) {
    llvm::consumeError(limit.takeError());
    return std::numeric_limits<int64_t>::max();
  }
  return *limit;
}

/// Every tensor of `module` fits the limit; checked before anything runs,
/// since kernels cannot fail halfway (sizes counted without overflow).
static llvm::Error checkTensorSizes(ModuleOp module) {
  llvm::Expected<int64_t> limitOrError = tensorByteLimit();
  if (!limitOrError)
    return limitOrError.takeError();
  int64_t limit = *limitOrError;
  std::string message;
  mlir::spmd::forEachDefinedType(module, [&](Operation *op, Type type) {
    auto tensor = llvm::dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() || !message.empty())
      return;
    llvm::Expected<DType> dtype = dtypeOf(tensor.getElementType());
    if (!dtype) {
      llvm::consumeError(dtype.takeError());
      return;
    }
    std::optional<int64_t> bytes = dtypeBytes(*dtype);
    for (int64_t size : tensor.getShape())
      if (bytes)
        bytes = llvm::checkedMul(*bytes, size);
    if (bytes && *bytes <= limit)
      return;
    llvm::raw_string_ostream os(message);
    mlir::spmd::printFileLineCol(os, op->getLoc());
    os << ": error: " << tensor << " needs "
       << (bytes ? std::to_string(*bytes) : std::string("more than 2^63"))
       << " bytes; tensors may have up to " << limit
       << " (SPMD_MAX_TENSOR_BYTES, default: the machine's memory)";
  });
  return message.empty() ? llvm::Error::success() : fail(message);
}

/// The executable of `module` as it runs: chains of elementwise generics
/// fused first, on a copy (the global module is partitioned afterwards).
static llvm::Expected<std::unique_ptr<Executable>>
compileForRun(ModuleOp module) {
  OwningOpRef<ModuleOp> copy = module.clone();
  if (llvm::Error err = runPasses(*copy, [](PassManager &pm) {
        pm.addPass(mlir::spmd::createSpmdFuseElementwise());
      }))
    return std::move(err);
  return Executable::compile(*copy);
}

/// A collective the entry reaches on a mesh larger than the devices that
/// run: the devices it waits for would never join.
static llvm::Error checkCollectiveMeshes(ModuleOp module, func::FuncOp entry,
                                         int64_t devices) {
  llvm::SmallVector<func::FuncOp> work{entry};
  llvm::DenseSet<Operation *> seen{entry};
  while (!work.empty()) {
    func::FuncOp function = work.pop_back_val();
    Operation *bad = nullptr;
    int64_t badDevices = 0;
    function.walk([&](Operation *op) {
      if (auto call = llvm::dyn_cast<CallOpInterface>(op))
        if (auto symbol = llvm::dyn_cast_if_present<SymbolRefAttr>(
                call.getCallableForCallee()))
          if (auto callee = module.lookupSymbol<func::FuncOp>(symbol))
            if (seen.insert(callee).second)
              work.push_back(callee);
      auto collective = llvm::dyn_cast<mlir::spmd::CollectiveOpInterface>(op);
      if (!collective || bad)
        return;
      auto mesh =
          module.lookupSymbol<mlir::spmd::MeshOp>(collective.getMeshAttr());
      if (mesh && mesh.getMesh().toMesh().numDevices() > devices) {
        bad = op;
        badDevices = mesh.getMesh().toMesh().numDevices();
      }
    });
    if (bad) {
      std::string message;
      llvm::raw_string_ostream os(message);
      mlir::spmd::printFileLineCol(os, bad->getLoc());
      os << ": error: '" << bad->getName() << "' is on a mesh of " << badDevices
         << " devices, but the program runs on " << devices
         << ": the others would never join it";
      return fail(message);
    }
  }
  return llvm::Error::success();
}

llvm::Error partitionModule(ModuleOp module) {
  return runPasses(module, [](PassManager &pm) {
    pm.addPass(mlir::spmd::createSpmdImport());
    mlir::spmd::buildSpmdPartitionPipeline(pm);
  });
}

llvm::Expected<std::unique_ptr<Program>>
Program::compile(OwningOpRef<ModuleOp> module, llvm::StringRef entryName) {
  std::unique_ptr<Program> program(new Program());
  bool partitioned =
      (*module)->hasAttr(mlir::spmd::SpmdDialect::kPartitionedAttrName);
  func::FuncOp entry = findEntry(*module, entryName);
  if (!entry)
    return fail(entryName.empty() ? "the module has no entry function"
                                  : "no function @" + entryName);
  program->entryName = entry.getSymName().str();

  // Annotations of other stacks (shard dialect, GSPMD strings) become
  // spmd ones first, as `--spmd-pipeline` does: the program checked
  // against is the imported one.
  if (!partitioned)
    if (llvm::Error err = runPasses(*module, [](PassManager &pm) {
          pm.addPass(mlir::spmd::createSpmdImport());
        }))
      return std::move(err);

  if (llvm::Error err = checkTensorSizes(*module))
    return std::move(err);

  // The global program, kept for checks and compiled when one first runs:
  // most runs check nothing, and compiling it (twice, with the f64 form)
  // copies every constant of a model twice more.
  if (!partitioned) {
    program->globalModule = module->clone();
    module->walk([&](linalg::LinalgOp op) {
      int64_t length = 1;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      for (auto [range, iterator] :
           llvm::zip(ranges, op.getIteratorTypesArray()))
        if (iterator == utils::IteratorType::reduction && range > 0)
          length *= range;
      program->reductionLength = std::max(program->reductionLength, length);
    });
  }

  // Global types, from the function before partitioning (or as partitioning
  // recorded them).
  auto globalType = [&](DictionaryAttr attrs, Type type) {
    if (attrs)
      if (auto recorded = attrs.getAs<TypeAttr>(
              mlir::spmd::SpmdDialect::kGlobalTypeAttrName))
        return recorded.getValue();
    return type;
  };
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    llvm::Expected<TensorSpec> spec = specOf(
        globalType(entry.getArgAttrDict(i), entry.getArgumentTypes()[i]));
    if (!spec)
      return fail("argument #" + llvm::Twine(i) + ": " +
                  llvm::toString(spec.takeError()));
    program->inputSpecs.push_back(std::move(*spec));
  }
  for (unsigned i = 0; i < entry.getNumResults(); ++i) {
    llvm::Expected<TensorSpec> spec = specOf(
        globalType(entry.getResultAttrDict(i), entry.getResultTypes()[i]));
    if (!spec)
      return fail("result #" + llvm::Twine(i) + ": " +
                  llvm::toString(spec.takeError()));
    program->outputSpecs.push_back(std::move(*spec));
  }

  bool hasMesh = !module->getOps<mlir::spmd::MeshOp>().empty();
  if (!partitioned && hasMesh)
    if (llvm::Error err = runPasses(*module, [](PassManager &pm) {
          mlir::spmd::buildSpmdPartitionPipeline(pm);
        }))
      return std::move(err);
  entry = module->lookupSymbol<func::FuncOp>(program->entryName);

  // Layouts of the entry's arguments and results; the device count is the
  // mesh's.
  StringRef shardingName = mlir::spmd::SpmdDialect::kShardingAttrName;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    auto layout = layoutOf(
        *module,
        entry.getArgAttrOfType<mlir::spmd::ShardingAttr>(i, shardingName),
        program->inputSpecs[i].shape);
    if (!layout)
      return layout.takeError();
    if (llvm::Error err = checkLocalType(entry.getArgumentTypes()[i], *layout,
                                         program->inputSpecs[i].shape,
                                         "argument #" + llvm::Twine(i)))
      return err;
    if (*layout)
      program->devices = (*layout)->mesh().numDevices();
    program->inputLayouts.push_back(std::move(*layout));
    auto sharding =
        entry.getArgAttrOfType<mlir::spmd::ShardingAttr>(i, shardingName);
    program->inputPartialKinds.push_back(
        sharding ? sharding.toTensorSharding().partialKind
                 : ReductionKind::Sum);
  }
  for (unsigned i = 0; i < entry.getNumResults(); ++i) {
    auto sharding =
        entry.getResultAttrOfType<mlir::spmd::ShardingAttr>(i, shardingName);
    auto layout = layoutOf(*module, sharding, program->outputSpecs[i].shape);
    if (!layout)
      return layout.takeError();
    if (llvm::Error err = checkLocalType(entry.getResultTypes()[i], *layout,
                                         program->outputSpecs[i].shape,
                                         "result #" + llvm::Twine(i)))
      return err;
    if (*layout)
      program->devices = (*layout)->mesh().numDevices();
    program->outputLayouts.push_back(std::move(*layout));
    program->outputPartialKinds.push_back(
        sharding ? sharding.toTensorSharding().partialKind
                 : ReductionKind::Sum);
  }
  // With every boundary value replicated, the first mesh sets the count.
  if (program->devices == 1 && hasMesh)
    program->devices = (*module->getOps<mlir::spmd::MeshOp>().begin())
                           .getMesh()
                           .toMesh()
                           .numDevices();

  if (llvm::Error err = checkCollectiveMeshes(*module, entry, program->devices))
    return std::move(err);
  program->localDevices = program->devices;
  program->world = MpiWorld::get();
  // A program of one device runs whole in every process.
  if (program->world &&
      (program->world->size() == 1 || program->devices == 1))
    program->world = nullptr;
  if (MpiWorld *world = program->world) {
    if (program->devices % world->size() != 0)
      return fail(llvm::formatv("the mesh has {0} devices, which {1} "
                                "processes cannot share evenly",
                                program->devices, world->size()));
    program->localDevices = program->devices / world->size();
    program->firstLocal = world->rank() * program->localDevices;
  }
  if (llvm::Error err = checkLocalDevices(program->localDevices))
    return std::move(err);
  program->threads = defaultThreadsPerDevice(program->localDevices);

  FailureOr<llvm::json::Value> report = mlir::spmd::buildCommReport(*module);
  if (succeeded(report))
    program->report = std::move(*report);
  llvm::Expected<std::unique_ptr<Executable>> local = compileForRun(*module);
  if (!local)
    return local.takeError();
  program->local = std::move(*local);
  if (program->world) {
    // Every process compiled the same module: they make the communicators
    // of its collectives' axis sets in the same order.
    program->mpi = std::make_unique<MpiCommunicator>(*program->world);
    std::vector<std::pair<const DeviceMesh *,
                          std::vector<llvm::SmallVector<AxisIndex>>>>
        uses;
    module->walk([&](mlir::spmd::CollectiveOpInterface op) {
      const DeviceMesh *mesh =
          program->local->mesh(op.getMeshAttr().getValue());
      if (!mesh)
        return;
      llvm::SmallVector<AxisIndex> axes;
      for (auto axis : op.getAxesAttr().getAsRange<StringAttr>())
        axes.push_back(*mesh->axisIndex(axis.getValue()));
      auto it = llvm::find_if(uses, [&](auto &use) { return use.first == mesh; });
      if (it == uses.end()) {
        uses.push_back({mesh, {}});
        it = std::prev(uses.end());
      }
      if (!llvm::is_contained(it->second, axes))
        it->second.push_back(axes);
    });
    // Collectives on meshes of another size (in functions the entry does
    // not call, say) cannot span the processes; one that runs says so.
    for (auto &[mesh, sets] : uses)
      if (mesh->numDevices() == program->devices)
        if (llvm::Error err = program->mpi->prepare(*mesh, sets))
          return std::move(err);
  }
  return program;
}

std::vector<TensorRef> Program::shard(unsigned input,
                                      const HostTensor &global) const {
  std::vector<TensorRef> shards;
  for (int64_t device = firstLocal; device < firstLocal + localDevices;
       ++device) {
    if (inputLayouts[input])
      shards.push_back(shardFor(global, *inputLayouts[input], device,
                                inputPartialKinds[input]));
    else if (shards.empty())
      shards.push_back(std::make_shared<HostTensor>(global));
    else // buffers are immutable: replicas share one copy
      shards.push_back(shards.front());
  }
  return shards;
}

std::vector<TensorRef> Program::shard(unsigned input,
                                      const uint8_t *global) const {
  if (!inputLayouts[input]) {
    const TensorSpec &spec = inputSpecs[input];
    auto whole = std::make_shared<HostTensor>(spec.type, spec.shape,
                                              Init::None);
    std::memcpy(whole->data(), global, whole->sizeInBytes());
    return std::vector<TensorRef>(localDevices, whole);
  }
  std::vector<TensorRef> shards;
  for (int64_t device = firstLocal; device < firstLocal + localDevices;
       ++device)
    shards.push_back(shardFor(global, inputSpecs[input].type,
                              *inputLayouts[input], device,
                              inputPartialKinds[input]));
  return shards;
}

/// A scalar argument or result as a 0-d tensor and back.
static RValue toValue(const TensorRef &tensor, bool isScalarType) {
  if (!isScalarType)
    return RValue::ofTensor(tensor);
  return isFloat(tensor->type()) ? RValue::ofFloat(tensor->getFloat(0))
                                 : RValue::ofInt(tensor->getInt(0));
}

static TensorRef fromValue(const RValue &value, const TensorSpec &spec) {
  if (value.tensor)
    return value.tensor;
  auto t = std::make_shared<HostTensor>(spec.type, spec.shape);
  if (isFloat(spec.type))
    t->setFloat(0, value.f);
  else
    t->setInt(0, value.i);
  return t;
}

llvm::Expected<std::vector<ShardedTensor>>
Program::runSharded(llvm::ArrayRef<HostTensor> args) {
  if (args.size() != inputSpecs.size())
    return fail("@" + entryName + " takes " + llvm::Twine(inputSpecs.size()) +
                " inputs");
  std::vector<std::vector<TensorRef>> perDevice(localDevices);
  for (auto [i, arg] : llvm::enumerate(args)) {
    std::vector<TensorRef> shards = shard(i, arg);
    for (int64_t index = 0; index < localDevices; ++index)
      perDevice[index].push_back(shards[index]);
  }
  return runSharded(std::move(perDevice));
}

llvm::Expected<std::vector<ShardedTensor>>
Program::runSharded(std::vector<std::vector<TensorRef>> perDevice) {
  llvm::Expected<std::vector<std::vector<RValue>>> results =
      runShards(std::move(perDevice));
  if (!results)
    return results.takeError();
  std::vector<ShardedTensor> outputs;
  for (unsigned r = 0; r < outputSpecs.size(); ++r) {
    std::vector<TensorRef> locals;
    for (int64_t index = 0; index < localDevices; ++index)
      locals.push_back(fromValue((*results)[index][r], outputSpecs[r]));
    outputs.emplace_back(outputSpecs[r].shape, std::move(locals),
                         outputLayouts[r], outputPartialKinds[r], firstLocal);
  }
  return outputs;
}

llvm::Expected<std::vector<HostTensor>>
Program::run(llvm::ArrayRef<HostTensor> args) {
  llvm::Expected<std::vector<ShardedTensor>> sharded = runSharded(args);
  if (!sharded)
    return sharded.takeError();
  std::vector<HostTensor> outputs;
  for (const ShardedTensor &result : *sharded) {
    llvm::Expected<HostTensor> whole = toHost(result);
    if (!whole)
      return whole.takeError();
    outputs.push_back(std::move(*whole));
  }
  return outputs;
}

llvm::Expected<std::vector<std::vector<RValue>>>
Program::runShards(std::vector<std::vector<TensorRef>> perDevice) {
  int64_t n = localDevices;
  std::vector<std::vector<RValue>> values(n);
  for (int64_t index = 0; index < n; ++index)
    for (auto [i, shard] : llvm::enumerate(perDevice[index]))
      values[index].push_back(toValue(shard, inputSpecs[i].scalar));
  auto memory = std::make_shared<MemoryStats>(n);
  // A device holds its argument shards for the whole run, whichever
  // thread allocated them: they count towards its peak.
  std::vector<int64_t> held(n, 0);
  for (int64_t index = 0; index < n; ++index) {
    for (const RValue &value : values[index])
      if (value.tensor)
        held[index] += value.tensor->sizeInBytes();
    memory->add(index, held[index]);
  }
  llvm::Expected<std::vector<std::vector<RValue>>> results =
      std::vector<std::vector<RValue>>();
  if (mpi) {
    // Processes must run their collectives in one order: runs of programs
    // over MPI take turns.
    static std::mutex mpiRuns;
    std::lock_guard<std::mutex> turn(mpiRuns);
    results = runOnDevices(*local, entryName, std::move(values), n, *mpi,
                           kernelThreads(n), memory, &devicePool, firstLocal);
    if (!results) {
      // The others stop at their next wait instead of waiting for this one.
      std::string text = llvm::toString(results.takeError());
      world->announceStop(text);
      results = fail("rank " + llvm::Twine(world->rank()) + ": " + text);
    }
  } else {
    LocalCommunicator communicator;
    results = runOnDevices(*local, entryName, std::move(values), n,
                           communicator, kernelThreads(n), memory,
                           &devicePool);
  }
  for (int64_t index = 0; index < n; ++index)
    memory->add(index, -held[index]);
  lastRunMemory = std::move(memory);
  return results;
}

llvm::Expected<HostTensor> Program::toHost(const ShardedTensor &tensor,
                                           bool everywhere) {
  return gatherToHost(tensor, world, everywhere);
}

std::map<std::string, MpiCommunicator::Traffic> Program::mpiTraffic() const {
  return mpi ? mpi->traffic() : std::map<std::string, MpiCommunicator::Traffic>();
}

void Program::clearMpiTraffic() {
  if (mpi)
    mpi->clearTraffic();
}

KernelThreads Program::kernelThreads(int64_t runningDevices) {
  if (threads == 1)
    return {};
  // Every running device may split a kernel at once, up to the pool's
  // limit (asking for more would make a new pool every run).
  int64_t helpers = std::min<int64_t>(
      kMaxKernelHelpers,
      runningDevices * std::min<int64_t>(threads - 1, kMaxKernelHelpers));
  if (!kernelPool || kernelPool->numThreads() < helpers)
    kernelPool = std::make_unique<KernelThreadPool>(helpers);
  return {threads, kernelPool.get()};
}

std::vector<int64_t> Program::peakBytesOfLastRun() const {
  std::vector<int64_t> peaks;
  if (lastRunMemory)
    for (int64_t device = 0; device < lastRunMemory->numDevices(); ++device)
      peaks.push_back(lastRunMemory->peak(device));
  return peaks;
}

/// `specs` with float types made f64.
static std::vector<TensorSpec> widened(llvm::ArrayRef<TensorSpec> specs) {
  std::vector<TensorSpec> wide(specs.begin(), specs.end());
  for (TensorSpec &spec : wide)
    if (isFloat(spec.type))
      spec.type = DType::F64;
  return wide;
}

/// Runs `function` of `executable` on one device.
static llvm::Expected<std::vector<HostTensor>>
runOnOneDevice(Executable &executable, llvm::StringRef function,
               llvm::ArrayRef<HostTensor> args,
               llvm::ArrayRef<TensorSpec> inputs,
               llvm::ArrayRef<TensorSpec> outputs, KernelThreads threads) {
  std::vector<RValue> values;
  for (auto [i, arg] : llvm::enumerate(args)) {
    if (arg.type() == inputs[i].type) {
      values.push_back(
          toValue(std::make_shared<HostTensor>(arg), inputs[i].scalar));
      continue;
    }
    auto tensor = std::make_shared<HostTensor>(inputs[i].type, arg.shape());
    for (int64_t e = 0; e < arg.numElements(); ++e) {
      if (isFloat(inputs[i].type))
        tensor->setFloat(e, arg.getAsDouble(e));
      else
        tensor->setInt(e, arg.getInt(e));
    }
    values.push_back(toValue(tensor, inputs[i].scalar));
  }
  LocalCommunicator communicator;
  DeviceContext context;
  context.threads = threads;
  context.communicator = &communicator;
  llvm::Expected<std::vector<RValue>> results =
      executable.run(function, std::move(values), context);
  if (!results)
    return results.takeError();
  std::vector<HostTensor> out;
  for (auto [r, value] : llvm::enumerate(*results))
    out.push_back(*fromValue(value, outputs[r]));
  return out;
}

/// The most loop iterations of linalg ops a program computing error scales
/// may have (a 512^3 matmul; the evaluator runs its bodies).
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

llvm::Error Program::compileReference() {
  if (global || !globalModule)
    return llvm::Error::success();
  llvm::Expected<std::unique_ptr<Executable>> compiled =
      compileForRun(*globalModule);
  if (!compiled)
    return compiled.takeError();
  global = std::move(*compiled);
  // The same in f64, where the program computes in narrower floats; the
  // module is no longer needed as it was.
  // `epsilon`: the largest ulp at 1 of its narrow floats, the reach of
  // a rounding error of scale m being epsilon * m (the check's slack).
  double epsilon = 0;
  globalModule->walk([&](Operation *op) {
    for (Type type : op->getResultTypes()) {
      Type element = getElementTypeOrSelf(type);
      if (!isa<Float16Type, BFloat16Type, Float32Type>(element))
        continue;
      llvm::Expected<DType> dtype = dtypeOf(element);
      if (!dtype)
        llvm::consumeError(dtype.takeError());
      else
        epsilon = std::max(epsilon, epsilonOf(*dtype));
    }
  });
  if (epsilon > 0) {
    if (failed(widenFloats(*globalModule))) {
      globalModule = nullptr;
      return llvm::Error::success();
    }
    llvm::Expected<std::unique_ptr<Executable>> wide =
        compileForRun(*globalModule);
    if (!wide) {
      llvm::consumeError(wide.takeError());
      globalModule = nullptr;
      return llvm::Error::success();
    }
    wideGlobal = std::move(*wide);
  }
  // Error scales beside the f64 values (of f64 programs too). Their
  // contractions run as generic bodies, not as the GEMM kernels: large
  // programs take the slack from the absolute values instead.
  if (structuredIterations(*globalModule) <= kMaxScaledIterations &&
      succeeded(addErrorScales(*globalModule, epsilon))) {
    llvm::Expected<std::unique_ptr<Executable>> withScales =
        compileForRun(*globalModule);
    if (withScales)
      scaled = std::move(*withScales);
    else
      llvm::consumeError(withScales.takeError());
  }
  globalModule = nullptr;
  return llvm::Error::success();
}

bool Program::hasWideGlobalProgram() {
  if (llvm::Error err = compileReference()) {
    llvm::consumeError(std::move(err));
    return false;
  }
  return bool(wideGlobal);
}

llvm::Expected<std::vector<HostTensor>>
Program::runGlobal(llvm::ArrayRef<HostTensor> args) {
  if (!hasGlobalProgram())
    return fail("the module is already partitioned: there is no "
                "unpartitioned program to run");
  if (llvm::Error err = compileReference())
    return std::move(err);
  return runOnOneDevice(*global, entryName, args, inputSpecs, outputSpecs,
                        kernelThreads(1));
}

llvm::Expected<std::vector<HostTensor>>
Program::runWideGlobal(llvm::ArrayRef<HostTensor> args) {
  if (!hasWideGlobalProgram())
    return fail("the program has no f64 form");
  return runOnOneDevice(*wideGlobal, entryName, args, widened(inputSpecs),
                        widened(outputSpecs), kernelThreads(1));
}

/// `specs` followed by those of their floats (a program with error scales).
static std::vector<TensorSpec> withScales(llvm::ArrayRef<TensorSpec> specs) {
  std::vector<TensorSpec> all(specs.begin(), specs.end());
  for (const TensorSpec &spec : specs)
    if (isFloat(spec.type))
      all.push_back(spec);
  return all;
}

llvm::Expected<CheckResult> Program::check(llvm::ArrayRef<HostTensor> args,
                                           llvm::ArrayRef<HostTensor> outputs) {
  llvm::Expected<std::vector<HostTensor>> reference = runGlobal(args);
  if (!reference)
    return reference.takeError();
  std::vector<HostTensor> wide, scales;
  if (scaled) {
    // The inputs' scales are their absolute values.
    std::vector<HostTensor> all(args.begin(), args.end());
    for (const HostTensor &arg : absoluteValues(args))
      if (isFloat(arg.type()))
        all.push_back(arg);
    llvm::Expected<std::vector<HostTensor>> results =
        runOnOneDevice(*scaled, entryName, all, widened(withScales(inputSpecs)),
                       widened(withScales(outputSpecs)), kernelThreads(1));
    if (!results)
      return results.takeError();
    size_t next = outputSpecs.size();
    for (size_t o = 0; o < outputSpecs.size(); ++o) {
      if (wideGlobal) // else the program computes in f64 already
        wide.push_back((*results)[o]);
      scales.push_back((*results)[isFloat(outputSpecs[o].type) ? next++ : o]);
    }
  } else if (wideGlobal) {
    llvm::Expected<std::vector<HostTensor>> computed = runWideGlobal(args);
    if (!computed)
      return computed.takeError();
    llvm::Expected<std::vector<HostTensor>> magnitudes =
        runWideGlobal(absoluteValues(args));
    if (!magnitudes)
      return magnitudes.takeError();
    wide = std::move(*computed);
    scales = std::move(*magnitudes);
  }
  CheckResult result =
      checkOutputs(outputs, *reference, wide, scales, reductionLength);
  result.wideReference = !wide.empty();
  result.errorScales = bool(scaled);
  return result;
}

} // namespace spmd::runtime
