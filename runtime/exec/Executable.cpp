//===- Executable.cpp - Programs compiled to steps ------------------------===//

#include "runtime/exec/Executable.h"
#include "runtime/kernels/KernelInterface.h"

#include "ir/Locations.h"
#include "ir/ModuleCalls.h"
#include "ir/RegionFlow.h"
#include "ir/SpmdOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SaveAndRestore.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>

using namespace mlir;

namespace spmd::runtime {

std::string opErrorText(Operation *op, const Twine &message) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << mlir::spmd::fileLineColPrefix(op->getLoc()) << "error: '"
     << op->getName() << "': " << message;
  return text;
}

llvm::Error opError(Operation *op, const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 opErrorText(op, message));
}

llvm::Expected<ElementType> elementTypeOf(Type type) {
  if (type.isF32())
    return ElementType::F32;
  if (type.isF64())
    return ElementType::F64;
  if (type.isF16())
    return ElementType::F16;
  if (type.isBF16())
    return ElementType::BF16;
  if (type.isIndex())
    return ElementType::Index;
  if (auto integer = llvm::dyn_cast<IntegerType>(type))
    if (integer.getWidth() >= 1 && integer.getWidth() <= 64)
      return integerElementType(integer.getWidth());
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  if (llvm::isa<IntegerType>(type))
    name += " (integers of 1 to 64 bits are supported)";
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unsupported element type " + name);
}

/// The step running `op`: its KernelOpInterface's, or the executor's own
/// for constants, calls and returns.
static llvm::Expected<Step> buildStep(Operation *op, KernelContext &context) {
  if (auto kernel = llvm::dyn_cast<KernelOpInterface>(op))
    return kernel.buildKernel(context);
  if (op->hasTrait<OpTrait::ConstantLike>())
    return buildConstantKernel(op, context);
  if (llvm::isa<CallOpInterface>(op))
    return buildCallKernel(op, context);
  if (op->hasTrait<OpTrait::ReturnLike>())
    return buildReturnKernel(op, context);
  return opError(op, "no kernel for this op");
}

unsigned KernelContext::slot(Value value) {
  auto [it, inserted] = slots.try_emplace(value, slots.size());
  return it->second;
}

/// The values of `block` (its arguments and its ops' results) whose last
/// use is each op: a use inside a nested region counts for the op of
/// `block` holding it. Unused values die where they are defined.
static llvm::DenseMap<Operation *, SmallVector<Value>> lastUses(Block &block) {
  llvm::DenseMap<Operation *, SmallVector<Value>> dying;
  auto record = [&](Value value, Operation *fallback) {
    Operation *last = nullptr;
    for (Operation *user : value.getUsers()) {
      Operation *inBlock = block.findAncestorOpInBlock(*user);
      if (inBlock && (!last || last->isBeforeInBlock(inBlock)))
        last = inBlock;
    }
    if (!last)
      last = fallback;
    if (last)
      dying[last].push_back(value);
  };
  for (BlockArgument arg : block.getArguments())
    record(arg, block.empty() ? nullptr : &block.front());
  for (Operation &op : block)
    for (Value result : op.getResults())
      record(result, &op);
  return dying;
}

llvm::Expected<Steps> KernelContext::compileBlock(Block &block) {
  Steps steps;
  for (BlockArgument arg : block.getArguments())
    slot(arg);
  llvm::DenseMap<Operation *, SmallVector<Value>> dying = lastUses(block);
  llvm::SaveAndRestore<SmallVector<Value>> outerDying(dyingHere);
  for (Operation &op : block) {
    dyingHere = dying.lookup(&op);
    llvm::Expected<Step> step = buildStep(&op, *this);
    if (!step)
      return step.takeError();
    // Buffers are freed after their last use, so a device holds only what
    // is live (what its peak memory reports).
    SmallVector<unsigned> release;
    for (Value value : dying.lookup(&op))
      release.push_back(slot(value));
    if (release.empty()) {
      if (*step)
        steps.push_back(std::move(*step));
      continue;
    }
    steps.push_back([inner = std::move(*step), release](
                        Frame &frame, DeviceContext &context) -> llvm::Error {
      if (inner)
        if (llvm::Error err = inner(frame, context))
          return err;
      for (unsigned s : release) {
        assert(s < frame.slots.size() && "a slot of the function's frame");
        frame.slots[s] = RValue();
      }
      return llvm::Error::success();
    });
  }
  return steps;
}

bool KernelContext::mayTake(Operation *op, Value value) const {
  return llvm::is_contained(dyingHere, value) &&
         llvm::count_if(value.getUsers(), [&](Operation *user) {
           return op->isAncestor(user);
         }) == 1;
}

TensorRef takeForWriting(RValue &value, bool mayTake, bool readsContents) {
  assert(value.tensor && "a tensor value");
  if (mayTake && value.tensor.use_count() == 1) {
    // use_count() reads relaxed; another device that dropped its reference
    // (a buffer collectives shared) released its reads with it.
    std::atomic_thread_fence(std::memory_order_acquire);
    return std::move(value.tensor);
  }
  if (readsContents)
    return std::make_shared<HostBuffer>(*value.tensor);
  return std::make_shared<HostBuffer>(
      value.tensor->type(), std::vector<int64_t>(value.tensor->shape()),
      Init::None);
}

llvm::Error runSteps(const Steps &steps, Frame &frame, DeviceContext &context) {
  for (const Step &step : steps)
    if (llvm::Error err = step(frame, context))
      return err;
  return llvm::Error::success();
}

using mlir::spmd::CallMap;

/// A call through which a function of `roots` or one they call calls
/// itself, directly or through others; null if there is none. (Devices
/// run on stacks of fixed size, and the partitioner gives every function
/// one layout per value.) `reached` gets every function visited.
static Operation *recursiveCall(const CallMap &calls,
                                llvm::ArrayRef<llvm::StringRef> roots,
                                llvm::StringSet<> &reached) {
  // Depth-first, functions on the current path marked.
  llvm::StringMap<int> state; // 1: on the path, 2: done
  std::function<Operation *(llvm::StringRef)> visit =
      [&](llvm::StringRef name) -> Operation * {
    state[name] = 1;
    reached.insert(name);
    for (auto [callee, call] : calls.lookup(name)) {
      int s = state.lookup(callee);
      if (s == 1)
        return call;
      if (s == 0)
        if (Operation *found = visit(callee))
          return found;
    }
    state[name] = 2;
    return nullptr;
  };
  for (llvm::StringRef root : roots)
    if (!state.lookup(root))
      if (Operation *found = visit(root))
        return found;
  return nullptr;
}

llvm::Expected<std::unique_ptr<Executable>>
Executable::compile(ModuleOp module, llvm::StringRef entry) {
  SmallVector<llvm::StringRef> roots;
  if (!entry.empty())
    roots.push_back(entry);
  else
    for (auto function : module.getOps<func::FuncOp>())
      roots.push_back(function.getSymName());
  llvm::StringSet<> reached;
  if (Operation *call =
          recursiveCall(mlir::spmd::callsOf(module), roots, reached))
    return opError(call, "recursive calls are not supported");
  // The kernels of upstream ops, whatever context the module was made in
  // (attached once; a context that has them is left alone).
  DialectRegistry kernels;
  registerKernelModels(kernels);
  module.getContext()->appendDialectRegistry(kernels);
  auto executable = std::make_unique<Executable>();
  for (auto mesh : module.getOps<mlir::spmd::MeshOp>())
    executable->meshes.try_emplace(mesh.getSymName(), mesh.getMesh().toMesh());
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal() || !reached.contains(function.getSymName()))
      continue;
    if (!function.getBody().hasOneBlock())
      return opError(function, mlir::spmd::kSeveralBlocks);
    KernelContext context(*executable);
    Function compiled;
    for (BlockArgument arg : function.getArguments())
      compiled.args.push_back(context.slot(arg));
    llvm::Expected<Steps> body =
        context.compileBlock(function.getBody().front());
    if (!body)
      return body.takeError();
    compiled.body = std::move(*body);
    compiled.numSlots = context.numSlots();
    assert(llvm::all_of(compiled.args,
                        [&](unsigned s) { return s < compiled.numSlots; }) &&
           "argument slots within the frame");
    executable->functions[function.getSymName()] = std::move(compiled);
  }
  return executable;
}

llvm::Expected<std::vector<RValue>>
Executable::run(llvm::StringRef name, std::vector<RValue> args,
                DeviceContext &context) const {
  auto it = functions.find(name);
  if (it == functions.end())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no function @" + name);
  const Function &function = it->second;
  if (args.size() != function.args.size())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "@" + name + " takes " + std::to_string(function.args.size()) +
            " arguments, " + std::to_string(args.size()) + " given");
  Frame frame;
  frame.slots.resize(function.numSlots);
  for (auto [slot, arg] : llvm::zip_equal(function.args, args))
    frame.slots[slot] = std::move(arg);
  if (llvm::Error err = runSteps(function.body, frame, context))
    return std::move(err);
  return std::move(frame.results);
}

const DeviceMesh *Executable::mesh(llvm::StringRef symbol) const {
  auto it = meshes.find(symbol);
  return it == meshes.end() ? nullptr : &it->second;
}

} // namespace spmd::runtime
