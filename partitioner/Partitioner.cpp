//===- Partitioner.cpp - Global program to local SPMD program -------------===//

#include "partitioner/Partitioner.h"
#include "ir/FunctionAttrs.h"
#include "ir/FunctionMesh.h"
#include "partitioner/OpPartitioners.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::spmd;

Partitioner::Partitioner(ModuleOp module)
    : module(module), b(module.getContext()) {
  for (MeshOp op : module.getOps<MeshOp>())
    meshes.push_back(std::make_unique<MeshInfo>(MeshInfo{
        FlatSymbolRefAttr::get(op.getSymNameAttr()), op.getMesh().toMesh()}));
}

int64_t mlir::spmd::elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

RankedTensorType Partitioner::localType(RankedTensorType type,
                                        const MeshInfo &mesh,
                                        const ::spmd::ShardState &state) {
  std::vector<int64_t> shape =
      ::spmd::localShape(mesh.mesh, type.getShape(), state);
  return RankedTensorType::get(shape, type.getElementType());
}

FailureOr<const MeshInfo *> Partitioner::meshFor(Operation *op,
                                                 FlatSymbolRefAttr symbol) {
  for (const auto &mesh : meshes)
    if (mesh->symbol == symbol)
      return mesh.get();
  return op->emitError() << symbol << " does not name a module-level spmd.mesh";
}

/// The sharding attribute propagation left for `value`, if any.
static ShardingAttr annotation(Value value) {
  StringRef name = SpmdDialect::kShardingAttrName;
  if (auto result = llvm::dyn_cast<OpResult>(value)) {
    auto perValue =
        result.getOwner()->getAttrOfType<ShardingPerValueAttr>(name);
    if (perValue && result.getResultNumber() < perValue.getShardings().size())
      return perValue.getShardings()[result.getResultNumber()];
    return {};
  }
  auto arg = llvm::cast<BlockArgument>(value);
  Operation *parent = arg.getOwner()->getParentOp();
  if (auto function = llvm::dyn_cast<func::FuncOp>(parent))
    return function.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(), name);
  // Loop-carried values have their loop's result sharding.
  if (auto loop = llvm::dyn_cast<scf::ForOp>(parent)) {
    if (arg.getArgNumber() == 0)
      return {};
    return annotation(loop.getResult(arg.getArgNumber() - 1));
  }
  if (auto loop = llvm::dyn_cast<scf::WhileOp>(parent))
    return annotation(loop.getResult(arg.getArgNumber()));
  return {};
}

FailureOr<std::pair<const MeshInfo *, ::spmd::ShardState>>
Partitioner::annotatedLayout(Value value) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  ShardingAttr sharding = annotation(value);
  Operation *anchor = value.getParentRegion()->getParentOp();
  if (!sharding) {
    if (!defaultMesh)
      return anchor->emitError("partitioning needs a spmd.mesh");
    ::spmd::ShardState replicated;
    replicated.dims.resize(type.getRank());
    return std::make_pair(defaultMesh, replicated);
  }
  FailureOr<const MeshInfo *> mesh = meshFor(anchor, sharding.getMesh());
  if (failed(mesh))
    return failure();
  llvm::Expected<::spmd::ShardState> state =
      ::spmd::toState((*mesh)->mesh, sharding.toTensorSharding());
  if (!state)
    return anchor->emitError() << llvm::toString(state.takeError());
  return std::make_pair(*mesh, std::move(*state));
}

FailureOr<std::optional<std::pair<const MeshInfo *, ::spmd::ShardState>>>
Partitioner::resultLayout(func::FuncOp function, unsigned i) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(function.getResultTypes()[i]);
  auto sharding = function.getResultAttrOfType<ShardingAttr>(
      i, SpmdDialect::kShardingAttrName);
  if (!tensor || !sharding || !tensor.hasStaticShape())
    return std::optional<std::pair<const MeshInfo *, ::spmd::ShardState>>();
  FailureOr<const MeshInfo *> mesh = meshFor(function, sharding.getMesh());
  if (failed(mesh))
    return failure();
  return std::optional(
      std::make_pair(*mesh, llvm::cantFail(::spmd::toState(
                                (*mesh)->mesh, sharding.toTensorSharding()))));
}

void Partitioner::set(Value global, LocalValue value) {
  values[global] = std::move(value);
}

Value Partitioner::current(Value global) {
  auto it = values.find(global);
  if (it != values.end())
    return it->second.local;
  return scalarMap.lookupOrDefault(global);
}

/// Whether a value defined in `block` can be used at the end of `at`.
static bool visibleFrom(Block *defined, Block *at) {
  for (Block *block = at; block;) {
    if (block == defined)
      return true;
    Operation *parent = block->getParentOp();
    block = parent ? parent->getBlock() : nullptr;
  }
  return false;
}

Value Partitioner::rematerialize(Value global, const MeshInfo &mesh,
                                 const ::spmd::ShardState &state) {
  Operation *def = global.getDefiningOp();
  auto type = llvm::dyn_cast<RankedTensorType>(global.getType());
  if (!def || !type || !state.partial.empty())
    return {};
  RankedTensorType local = localType(type, mesh, state);
  Location loc = def->getLoc();
  if (llvm::isa<tensor::EmptyOp>(def) && def->getNumOperands() == 0)
    return tensor::EmptyOp::create(b, loc, local.getShape(),
                                   local.getElementType());
  if (auto constant = llvm::dyn_cast<arith::ConstantOp>(def))
    if (auto splat = llvm::dyn_cast<SplatElementsAttr>(constant.getValue()))
      return arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(local, splat.getSplatValue<Attribute>()));
  if (auto fill = llvm::dyn_cast<linalg::FillOp>(def)) {
    Value init = rematerialize(fill.getOutputs()[0], mesh, state);
    Value scalar = scalarMap.lookupOrNull(fill.getInputs()[0]);
    if (init && scalar)
      return linalg::FillOp::create(b, loc, ValueRange{scalar},
                                    ValueRange{init})
          .getResult(0);
  }
  return {};
}

FailureOr<Value> Partitioner::get(Operation *user, Value global,
                                  const ::spmd::ShardState &state) {
  const LocalValue &current = values.at(global);
  if (current.state == state)
    return current.local;
  auto key = std::make_pair(global.getAsOpaquePointer(), state.key());
  auto cached = reshards.find(key);
  if (cached != reshards.end() &&
      visibleFrom(cached->second.getParentBlock(), b.getInsertionBlock()))
    return cached->second;
  if (Value remade = rematerialize(global, *current.mesh, state)) {
    reshards[key] = remade;
    return remade;
  }
  auto type = llvm::cast<RankedTensorType>(global.getType());
  // Pending over axes the value is not pending over (or pending another
  // reduction, which is done first): reach the layout without them, then
  // keep the value on one device of each group (sums; every device keeps
  // it for max and min). No communication.
  bool sameKind = current.state.partial.empty() ||
                  current.state.reduction == state.reduction;
  ::spmd::ShardState kept = state;
  kept.partial.clear();
  if (sameKind)
    for (::spmd::AxisIndex axis : current.state.partial)
      if (llvm::is_contained(state.partial, axis))
        kept.partial.push_back(axis);
  kept.reduction = kept.partial.empty() ? state.reduction
                                        : current.state.reduction;
  ::spmd::AxisList added;
  for (::spmd::AxisIndex axis : state.partial)
    if (!llvm::is_contained(kept.partial, axis))
      added.push_back(axis);
  if (!added.empty()) {
    FailureOr<Value> whole = get(user, global, kept);
    if (failed(whole))
      return failure();
    Value local = *whole;
    if (state.reduction == ::spmd::ReductionKind::Sum)
      local = keepOnFirst(
          b, user->getLoc(), local, *current.mesh, added,
          identityOf(b, state.reduction, type.getElementType()));
    reshards[key] = local;
    return local;
  }
  const ::spmd::ReshardPlan *plan =
      planCache.plan(current.mesh->mesh, type.getShape(),
                     elementBytes(type.getElementType()), current.state, state);
  if (!plan)
    return user->emitError()
           << "cannot reshard an operand from "
           << ::spmd::describe(current.mesh->mesh,
                               current.mesh->symbol.getValue(), current.state)
           << " to "
           << ::spmd::describe(current.mesh->mesh,
                               current.mesh->symbol.getValue(), state);
  if (plan->fallback)
    user->emitRemark() << "reshard planning stopped after "
                       << ::spmd::kReshardSearchBudget
                       << " layouts: gathering and slicing instead (exact, "
                          "not the fewest bytes)";
  Value local =
      emitReshard(b, user->getLoc(), current.local, *current.mesh, *plan);
  reshards[key] = local;
  return local;
}

LogicalResult Partitioner::partitionOp(Operation *op) {
  return OpPartitionerRegistry::get().handlerFor(op)(op, *this);
}

LogicalResult Partitioner::partitionBlock(Block &source) {
  for (Operation &op : source.without_terminator())
    if (failed(partitionOp(&op)))
      return failure();
  Operation *terminator = source.getTerminator();
  // Loop and branch terminators are handled by their parent's handler.
  if (llvm::isa<scf::YieldOp, scf::ConditionOp>(terminator))
    return success();
  return partitionOp(terminator);
}

LogicalResult Partitioner::partitionFunction(func::FuncOp function) {
  // Values without a sharding are replicated on the function's mesh.
  defaultMesh = meshes.front().get();
  if (FlatSymbolRefAttr symbol = firstShardingMesh(function))
    for (const auto &mesh : meshes)
      if (mesh->symbol == symbol)
        defaultMesh = mesh.get();
  SmallVector<Type> argTypes, resultTypes;
  SmallVector<LocalValue> argValues;
  for (BlockArgument arg : function.getArguments()) {
    auto tensor = llvm::dyn_cast<RankedTensorType>(arg.getType());
    if (!tensor) {
      argTypes.push_back(arg.getType());
      argValues.push_back({});
      continue;
    }
    auto layout = annotatedLayout(arg);
    if (failed(layout))
      return failure();
    argTypes.push_back(localType(tensor, *layout->first, layout->second));
    argValues.push_back({Value(), layout->first, layout->second});
  }
  for (auto [i, type] : llvm::enumerate(function.getResultTypes())) {
    auto layout = resultLayout(function, i);
    if (failed(layout))
      return failure();
    resultTypes.push_back(*layout
                              ? localType(llvm::cast<RankedTensorType>(type),
                                          *(*layout)->first, (*layout)->second)
                              : type);
  }

  // Remember the global types: tools assemble results from local ones.
  auto recordGlobal = [&](TypeRange types) {
    return [&, types](unsigned i, NamedAttrList &attrs) {
      if (llvm::isa<RankedTensorType>(types[i]))
        attrs.set(SpmdDialect::kGlobalTypeAttrName, TypeAttr::get(types[i]));
    };
  };
  updateArgAttrs(function, recordGlobal(function.getArgumentTypes()));
  updateResultAttrs(function, recordGlobal(function.getResultTypes()));

  b.setInsertionPoint(function);
  auto local = func::FuncOp::create(b, function.getLoc(), function.getSymName(),
                                    b.getFunctionType(argTypes, resultTypes));
  local->setAttrs(function->getAttrs());
  local.setFunctionType(b.getFunctionType(argTypes, resultTypes));
  Block *entry = local.addEntryBlock();
  for (auto [arg, newArg, value] : llvm::zip_equal(
           function.getArguments(), entry->getArguments(), argValues)) {
    newArg.setLoc(arg.getLoc());
    if (value.mesh)
      set(arg, {newArg, value.mesh, value.state});
    else
      scalarMap.map(arg, newArg);
  }
  b.setInsertionPointToStart(entry);
  if (failed(partitionBlock(function.getBody().front())))
    return failure();
  function.erase();
  // Values made for layouts nobody ended up using. Users come after their
  // operands, so a reverse walk frees chains at once; an erased op takes
  // its regions' ops with it, and those are not visited again.
  SmallVector<Operation *> ops;
  local.walk([&](Operation *op) { ops.push_back(op); });
  llvm::DenseSet<Operation *> erased;
  for (Operation *op : llvm::reverse(ops)) {
    if (erased.contains(op) || !isOpTriviallyDead(op))
      continue;
    op->walk([&](Operation *nested) { erased.insert(nested); });
    op->erase();
  }
  return success();
}

LogicalResult Partitioner::run() {
  if (meshes.empty())
    return success();
  SmallVector<func::FuncOp> functions;
  for (auto function : module.getOps<func::FuncOp>())
    if (!function.isExternal())
      functions.push_back(function);
  for (func::FuncOp function : functions)
    if (failed(partitionFunction(function)))
      return failure();
  module->setAttr(SpmdDialect::kPartitionedAttrName,
                  UnitAttr::get(module.getContext()));
  return success();
}
