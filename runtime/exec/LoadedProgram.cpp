//===- LoadedProgram.cpp - A partitioned module on all local devices ------===//

#include "runtime/exec/LoadedProgram.h"
#include "runtime/kernels/Parallel.h"

#include "ir/Locations.h"
#include "ir/SpmdOps.h"
#include "ir/ValueTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InterleavedRange.h"
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
  llvm::Expected<ElementType> dtype = elementTypeOf(element);
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

// Sizes are counted without overflow.
llvm::Error checkTensorSizes(ModuleOp module) {
  llvm::Expected<int64_t> limitOrError = tensorByteLimit();
  if (!limitOrError)
    return limitOrError.takeError();
  int64_t limit = *limitOrError;
  std::string message;
  mlir::spmd::forEachDefinedType(module, [&](Operation *op, Type type) {
    auto tensor = llvm::dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() || !message.empty())
      return;
    llvm::Expected<ElementType> dtype = elementTypeOf(tensor.getElementType());
    if (!dtype) {
      llvm::consumeError(dtype.takeError());
      return;
    }
    std::optional<int64_t> bytes = elementTypeBytes(*dtype);
    for (int64_t size : tensor.getShape())
      if (bytes)
        bytes = llvm::checkedMul(*bytes, size);
    if (bytes && *bytes <= limit)
      return;
    llvm::raw_string_ostream os(message);
    os << mlir::spmd::fileLineColPrefix(op->getLoc()) << "error: " << tensor
       << " needs "
       << (bytes ? std::to_string(*bytes) : std::string("more than 2^63"))
       << " bytes; tensors may have up to " << limit
       << " (SPMD_MAX_TENSOR_BYTES, default: the machine's memory)";
  });
  return message.empty() ? llvm::Error::success() : fail(message);
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
      os << mlir::spmd::fileLineColPrefix(bad->getLoc()) << "error: '"
         << bad->getName() << "' is on a mesh of " << badDevices
         << " devices, but the program runs on " << devices
         << ": the others would never join it";
      return fail(message);
    }
  }
  return llvm::Error::success();
}

/// The global type of a value of the entry (`type` as partitioning left
/// it, with `attrs` its argument or result attributes).
static Type globalTypeOf(DictionaryAttr attrs, Type type) {
  if (attrs)
    if (auto recorded =
            attrs.getAs<TypeAttr>(mlir::spmd::SpmdDialect::kGlobalTypeAttrName))
      return recorded.getValue();
  return type;
}

/// The global specs of the entry's arguments (or results).
static llvm::Expected<std::vector<TensorSpec>> boundarySpecs(func::FuncOp entry,
                                                             bool results) {
  std::vector<TensorSpec> specs;
  unsigned count = results ? entry.getNumResults() : entry.getNumArguments();
  for (unsigned i = 0; i < count; ++i) {
    Type type = globalTypeOf(
        results ? entry.getResultAttrDict(i) : entry.getArgAttrDict(i),
        results ? entry.getResultTypes()[i] : entry.getArgumentTypes()[i]);
    llvm::Expected<TensorSpec> spec = specOf(type);
    if (!spec)
      return fail((results ? "result #" : "argument #") + llvm::Twine(i) +
                  ": " + llvm::toString(spec.takeError()));
    specs.push_back(std::move(*spec));
  }
  return specs;
}

/// The layout and partial kind of each of the entry's arguments (or
/// results), whose global specs are `specs`; `devices` becomes the count of
/// their mesh.
static llvm::Error
boundaryLayouts(ModuleOp module, func::FuncOp entry, bool results,
                llvm::ArrayRef<TensorSpec> specs,
                std::vector<std::optional<ShardLayout>> &layouts,
                std::vector<ReductionKind> &partialKinds, int64_t &devices) {
  StringRef shardingName = mlir::spmd::SpmdDialect::kShardingAttrName;
  for (auto [i, spec] : llvm::enumerate(specs)) {
    auto sharding =
        results
            ? entry.getResultAttrOfType<mlir::spmd::ShardingAttr>(i,
                                                                  shardingName)
            : entry.getArgAttrOfType<mlir::spmd::ShardingAttr>(i, shardingName);
    auto layout = layoutOf(module, sharding, spec.shape);
    if (!layout)
      return layout.takeError();
    Type localType =
        results ? entry.getResultTypes()[i] : entry.getArgumentTypes()[i];
    if (llvm::Error err = checkLocalType(localType, *layout, spec.shape,
                                         (results ? "result #" : "argument #") +
                                             llvm::Twine(i)))
      return err;
    if (*layout)
      devices = (*layout)->mesh().numDevices();
    layouts.push_back(std::move(*layout));
    partialKinds.push_back(sharding ? sharding.toTensorSharding().partialKind
                                    : ReductionKind::Sum);
  }
  return llvm::Error::success();
}

/// The axis sets the collectives of `module` use, per mesh, in the order
/// they first appear.
static std::vector<
    std::pair<const DeviceMesh *, std::vector<llvm::SmallVector<AxisIndex>>>>
collectiveAxisSets(ModuleOp module, const Executable &executable) {
  std::vector<
      std::pair<const DeviceMesh *, std::vector<llvm::SmallVector<AxisIndex>>>>
      uses;
  module->walk([&](mlir::spmd::CollectiveOpInterface op) {
    const DeviceMesh *mesh = executable.mesh(op.getMeshAttr().getValue());
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
  return uses;
}

llvm::Error LoadedProgram::placeOnProcesses() {
  localDevices = devices;
  world = inOneProcess ? nullptr : MpiWorld::get();
  // A program of one device runs whole in every process.
  if (world && (world->size() == 1 || devices == 1))
    world = nullptr;
  if (world) {
    if (devices % world->size() != 0)
      return fail(llvm::formatv("the mesh has {0} devices, which {1} "
                                "processes cannot share evenly",
                                devices, world->size()));
    localDevices = devices / world->size();
    firstLocal = world->rank() * localDevices;
  }
  if (llvm::Error err = checkLocalDevices(localDevices))
    return err;
  threads = defaultThreadsPerDevice(localDevices);
  return llvm::Error::success();
}

llvm::Error LoadedProgram::prepareMpi(ModuleOp module) {
  // Every process loaded the same module: they make the communicators of
  // its collectives' axis sets in the same order.
  mpi = std::make_unique<MpiCommunicator>(*world);
  // Collectives on meshes of another size (in functions the entry does not
  // call, say) cannot span the processes; one that runs says so.
  for (auto &[mesh, sets] : collectiveAxisSets(module, *local))
    if (mesh->numDevices() == devices)
      if (llvm::Error err = mpi->prepare(*mesh, sets))
        return err;
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<LoadedProgram>>
LoadedProgram::load(ModuleOp module, llvm::StringRef entryName,
                    CompileFacts facts) {
  std::unique_ptr<LoadedProgram> program(new LoadedProgram());
  func::FuncOp entry = findEntry(module, entryName);
  if (!entry)
    return fail(entryName.empty() ? "the module has no entry function"
                                  : "no function @" + entryName);
  program->entryName = entry.getSymName().str();
  program->report = std::move(facts.commReport);
  program->commBytes = std::move(facts.collectiveBytes);
  program->reductionLength = facts.longestReduction;
  program->buildReference = std::move(facts.reference);
  program->inOneProcess = facts.inOneProcess;
  if (llvm::Error err = checkTensorSizes(module))
    return std::move(err);

  for (bool results : {false, true}) {
    llvm::Expected<std::vector<TensorSpec>> specs =
        boundarySpecs(entry, results);
    if (!specs)
      return specs.takeError();
    (results ? program->outputSpecs : program->inputSpecs) = std::move(*specs);
    if (llvm::Error err = boundaryLayouts(
            module, entry, results,
            results ? program->outputSpecs : program->inputSpecs,
            results ? program->outputLayouts : program->inputLayouts,
            results ? program->outputPartialKinds : program->inputPartialKinds,
            program->devices))
      return std::move(err);
  }
  // With every boundary value replicated, the first mesh sets the count.
  auto meshes = module.getOps<mlir::spmd::MeshOp>();
  if (program->devices == 1 && !meshes.empty())
    program->devices = (*meshes.begin()).getMesh().toMesh().numDevices();

  if (llvm::Error err = checkCollectiveMeshes(module, entry, program->devices))
    return std::move(err);
  if (llvm::Error err = program->placeOnProcesses())
    return std::move(err);
  llvm::Expected<std::unique_ptr<Executable>> local =
      Executable::compile(module, program->entryName);
  if (!local)
    return local.takeError();
  program->local = std::move(*local);
  if (program->world)
    if (llvm::Error err = program->prepareMpi(module))
      return std::move(err);
  return program;
}
std::vector<TensorRef> LoadedProgram::shard(unsigned input,
                                            const HostBuffer &global) const {
  std::vector<TensorRef> shards;
  for (int64_t device = firstLocal; device < firstLocal + localDevices;
       ++device) {
    CountedFor counted(device - firstLocal);
    if (inputLayouts[input])
      shards.push_back(shardFor(global, *inputLayouts[input], device,
                                inputPartialKinds[input]));
    else if (shards.empty())
      shards.push_back(std::make_shared<HostBuffer>(global));
    else // buffers are immutable: replicas share one copy
      shards.push_back(shards.front());
  }
  return shards;
}

std::vector<TensorRef> LoadedProgram::shard(unsigned input,
                                            const uint8_t *global) const {
  if (!inputLayouts[input]) {
    const TensorSpec &spec = inputSpecs[input];
    CountedFor counted(0);
    auto whole =
        std::make_shared<HostBuffer>(spec.type, spec.shape, Init::None);
    std::memcpy(whole->data(), global, whole->sizeInBytes());
    return std::vector<TensorRef>(localDevices, whole);
  }
  std::vector<TensorRef> shards;
  for (int64_t device = firstLocal; device < firstLocal + localDevices;
       ++device) {
    CountedFor counted(device - firstLocal);
    shards.push_back(shardFor(global, inputSpecs[input].type,
                              *inputLayouts[input], device,
                              inputPartialKinds[input]));
  }
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
  auto t = std::make_shared<HostBuffer>(spec.type, spec.shape);
  if (isFloat(spec.type))
    t->setFloat(0, value.f);
  else
    t->setInt(0, value.i);
  return t;
}

llvm::Expected<std::vector<ShardedBuffer>>
LoadedProgram::runSharded(llvm::ArrayRef<HostBuffer> args) {
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

llvm::Expected<std::vector<ShardedBuffer>>
LoadedProgram::runSharded(std::vector<std::vector<TensorRef>> perDevice) {
  llvm::Expected<std::vector<std::vector<RValue>>> results =
      runShards(std::move(perDevice));
  if (!results)
    return results.takeError();
  std::vector<ShardedBuffer> outputs;
  for (unsigned r = 0; r < outputSpecs.size(); ++r) {
    std::vector<TensorRef> locals;
    for (int64_t index = 0; index < localDevices; ++index)
      locals.push_back(fromValue((*results)[index][r], outputSpecs[r]));
    outputs.emplace_back(outputSpecs[r].shape, std::move(locals),
                         outputLayouts[r], outputPartialKinds[r], firstLocal);
  }
  return outputs;
}

llvm::Expected<std::vector<HostBuffer>>
LoadedProgram::run(llvm::ArrayRef<HostBuffer> args) {
  llvm::Expected<std::vector<ShardedBuffer>> sharded = runSharded(args);
  if (!sharded)
    return sharded.takeError();
  std::vector<HostBuffer> outputs;
  for (const ShardedBuffer &result : *sharded) {
    llvm::Expected<HostBuffer> whole = toHost(result);
    if (!whole)
      return whole.takeError();
    outputs.push_back(std::move(*whole));
  }
  return outputs;
}

llvm::Expected<std::vector<std::vector<RValue>>>
LoadedProgram::runShards(std::vector<std::vector<TensorRef>> perDevice) {
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
                           communicator, kernelThreads(n), memory, &devicePool);
  }
  for (int64_t index = 0; index < n; ++index)
    memory->add(index, -held[index]);
  lastRunMemory = std::move(memory);
  return results;
}

llvm::Expected<HostBuffer> LoadedProgram::toHost(const ShardedBuffer &tensor,
                                                 bool everywhere) {
  return gatherToHost(tensor, world, everywhere);
}

std::map<std::string, MpiCommunicator::Traffic>
LoadedProgram::mpiTraffic() const {
  return mpi ? mpi->traffic()
             : std::map<std::string, MpiCommunicator::Traffic>();
}

void LoadedProgram::clearMpiTraffic() {
  if (mpi)
    mpi->clearTraffic();
}

KernelThreads LoadedProgram::kernelThreads(int64_t runningDevices) {
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

std::vector<int64_t> LoadedProgram::peakBytesOfLastRun() const {
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
      spec.type = ElementType::F64;
  return wide;
}

/// Runs `function` of `executable` on `values` on one device, on the
/// calling thread.
static llvm::Expected<std::vector<TensorRef>>
runValuesOnOneDevice(const Executable &executable, llvm::StringRef function,
                     std::vector<RValue> values,
                     llvm::ArrayRef<TensorSpec> outputs,
                     KernelThreads threads) {
  LocalCommunicator communicator;
  DeviceContext context;
  context.threads = threads;
  context.communicator = &communicator;
  llvm::Expected<std::vector<RValue>> results =
      executable.run(function, std::move(values), context);
  if (!results)
    return results.takeError();
  std::vector<TensorRef> out;
  for (auto [r, value] : llvm::enumerate(*results))
    out.push_back(fromValue(value, outputs[r]));
  return out;
}

/// Runs `function` of `executable` on one device, `args` converted to the
/// types of `inputs` where they differ (the f64 forms).
static llvm::Expected<std::vector<HostBuffer>>
runOnOneDevice(const Executable &executable, llvm::StringRef function,
               llvm::ArrayRef<HostBuffer> args,
               llvm::ArrayRef<TensorSpec> inputs,
               llvm::ArrayRef<TensorSpec> outputs, KernelThreads threads) {
  std::vector<RValue> values;
  for (auto [i, arg] : llvm::enumerate(args)) {
    if (arg.type() == inputs[i].type) {
      values.push_back(
          toValue(std::make_shared<HostBuffer>(arg), inputs[i].scalar));
      continue;
    }
    auto tensor = std::make_shared<HostBuffer>(inputs[i].type, arg.shape());
    for (int64_t e = 0; e < arg.numElements(); ++e) {
      if (isFloat(inputs[i].type))
        tensor->setFloat(e, arg.getAsDouble(e));
      else
        tensor->setInt(e, arg.getInt(e));
    }
    values.push_back(toValue(tensor, inputs[i].scalar));
  }
  llvm::Expected<std::vector<TensorRef>> results = runValuesOnOneDevice(
      executable, function, std::move(values), outputs, threads);
  if (!results)
    return results.takeError();
  std::vector<HostBuffer> out;
  for (const TensorRef &result : *results)
    out.push_back(*result);
  return out;
}

llvm::Expected<std::vector<TensorRef>>
LoadedProgram::runOnCallingThread(llvm::ArrayRef<TensorRef> args) const {
  assert(devices == 1 && !world && "a program of one device");
  assert(args.size() == inputSpecs.size() && "one tensor per input");
  std::vector<RValue> values;
  for (auto [arg, spec] : llvm::zip(args, inputSpecs)) {
    assert(arg->type() == spec.type &&
           arg->shape() == llvm::ArrayRef<int64_t>(spec.shape) &&
           "the caller checks the inputs");
    values.push_back(toValue(arg, spec.scalar));
  }
  return runValuesOnOneDevice(*local, entryName, std::move(values), outputSpecs,
                              {});
}

llvm::Error LoadedProgram::compileReference() {
  if (global || devicesReference || !buildReference)
    return llvm::Error::success();
  llvm::Expected<ReferenceModules> modules = buildReference();
  if (!modules)
    return modules.takeError();
  buildReference = nullptr; // the unpartitioned module it held goes too
  if (modules->onDevices) {
    devicesReference = std::move(modules->onDevices);
    devicesReference->setThreadsPerDevice(threads);
    return llvm::Error::success();
  }
  llvm::Expected<std::unique_ptr<Executable>> compiled =
      Executable::compile(*modules->global, entryName);
  if (!compiled)
    return compiled.takeError();
  global = std::move(*compiled);
  // Without an f64 form or error scales the check falls back on what it
  // has: not an error.
  for (auto [module, executable] :
       {std::pair{&modules->wide, &wideGlobal}, {&modules->scaled, &scaled}}) {
    if (!*module)
      continue;
    llvm::Expected<std::unique_ptr<Executable>> loaded =
        Executable::compile(**module, entryName);
    if (loaded)
      *executable = std::move(*loaded);
    else
      llvm::consumeError(loaded.takeError());
  }
  return llvm::Error::success();
}

bool LoadedProgram::hasWideGlobalProgram() {
  if (llvm::Error err = compileReference()) {
    llvm::consumeError(std::move(err));
    return false;
  }
  return bool(wideGlobal);
}

llvm::Expected<std::vector<HostBuffer>>
LoadedProgram::runGlobal(llvm::ArrayRef<HostBuffer> args) {
  if (!hasGlobalProgram())
    return fail("the module is already partitioned: there is no "
                "unpartitioned program to run");
  if (llvm::Error err = compileReference())
    return std::move(err);
  if (devicesReference)
    return devicesReference->run(args);
  return runOnOneDevice(*global, entryName, args, inputSpecs, outputSpecs,
                        kernelThreads(1));
}

llvm::Expected<std::vector<HostBuffer>>
LoadedProgram::runWideGlobal(llvm::ArrayRef<HostBuffer> args) {
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

llvm::Expected<CheckResult>
LoadedProgram::check(llvm::ArrayRef<HostBuffer> args,
                     llvm::ArrayRef<HostBuffer> outputs,
                     llvm::ArrayRef<std::vector<TensorRef>> shards) {
  llvm::Expected<std::vector<HostBuffer>> reference = runGlobal(args);
  if (!reference)
    return reference.takeError();
  std::vector<HostBuffer> wide, scales;
  if (scaled) {
    std::vector<HostBuffer> all(args.begin(), args.end());
    for (const HostBuffer &arg : inputErrorScales(args))
      if (isFloat(arg.type()))
        all.push_back(arg);
    llvm::Expected<std::vector<HostBuffer>> results =
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
    llvm::Expected<std::vector<HostBuffer>> computed = runWideGlobal(args);
    if (!computed)
      return computed.takeError();
    llvm::Expected<std::vector<HostBuffer>> magnitudes =
        runWideGlobal(absoluteValues(args));
    if (!magnitudes)
      return magnitudes.takeError();
    wide = std::move(*computed);
    scales = std::move(*magnitudes);
  }
  CheckResult result =
      checkOutputs(outputs, *reference, wide, scales, reductionLength);
  checkCopies(shards, result);
  result.wideReference = !wide.empty();
  result.errorScales = bool(scaled);
  return result;
}

/// "device 3" or "devices 1, 3".
static std::string deviceList(llvm::ArrayRef<int64_t> devices) {
  return llvm::formatv("device{0} {1}", devices.size() > 1 ? "s" : "",
                       llvm::interleaved(devices));
}

void LoadedProgram::checkCopies(llvm::ArrayRef<std::vector<TensorRef>> shards,
                                CheckResult &result) const {
  for (auto [o, locals] : llvm::enumerate(shards)) {
    if (locals.empty())
      continue;
    const std::optional<ShardLayout> &layout = outputLayouts[o];
    // Without a layout (a scalar, say) the value is whole on every device:
    // each holds a copy.
    std::vector<std::vector<int64_t>> holders;
    if (layout)
      holders = copyHolders(*layout);
    else
      for (int64_t device = 0; device < int64_t(locals.size()); ++device)
        holders.push_back({device});
    auto value = [&](int64_t device) {
      return layout ? heldValue(locals, *layout, outputPartialKinds[o], device)
                    : locals[device];
    };
    std::vector<TensorRef> firstValues;
    for (int64_t device : holders[0])
      firstValues.push_back(value(device));
    // The holders whose shard disagrees with the first copy's (in every
    // other copy), and those.
    std::vector<int64_t> differing, first;
    for (size_t copy = 1; copy < holders.size(); ++copy)
      for (auto [device, firstDevice, firstValue] :
           llvm::zip(holders[copy], holders[0], firstValues))
        if (!copiesAgree(*value(device), *firstValue)) {
          differing.push_back(device);
          if (!llvm::is_contained(first, firstDevice))
            first.push_back(firstDevice);
        }
    if (!differing.empty()) {
      llvm::sort(differing);
      llvm::sort(first);
      result.pass = false;
      bool several = differing.size() > 1;
      result.copyMismatch = llvm::formatv(
          "result {0}: {1} {2} {3} the same values as {4}, and {5} not (a "
          "value replicated over an axis differs between devices)",
          o, layout ? "its sharding says" : "a result without a sharding says",
          deviceList(differing), several ? "hold" : "holds", deviceList(first),
          several ? "they do" : "it does");
      return;
    }
  }
}

llvm::Expected<std::vector<TensorRef>>
LoadedProgram::shardsOnHost(const ShardedBuffer &tensor) {
  return gatherShardsToHost(tensor, world);
}

} // namespace spmd::runtime
