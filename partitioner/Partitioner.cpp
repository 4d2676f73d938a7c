//===- Partitioner.cpp - Global program to local SPMD program -------------===//

#include "partitioner/Partitioner.h"
#include "ir/FunctionAttrs.h"
#include "ir/FunctionMesh.h"
#include "ir/Locations.h"
#include "ir/Namespaces.h"
#include "ir/RegionFlow.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Format.h"

#define DEBUG_TYPE "spmd-partition"

using namespace mlir;
using namespace mlir::spmd;

Partitioner::Partitioner(ModuleOp module)
    : module(module), b(module.getContext()) {
  for (MeshOp op : module.getOps<MeshOp>())
    meshes.push_back(std::make_unique<MeshInfo>(MeshInfo{
        FlatSymbolRefAttr::get(op.getSymNameAttr()), op.getMesh().toMesh()}));
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
  // Region arguments take their layouts from their flow class
  // (ControlFlowPartitioners.cpp); only function arguments have their own.
  auto arg = llvm::cast<BlockArgument>(value);
  auto function =
      llvm::dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!function)
    return {};
  return function.getArgAttrOfType<ShardingAttr>(arg.getArgNumber(), name);
}

Layout Partitioner::replicated(RankedTensorType type) const {
  ShardState state;
  state.dims.resize(type.getRank());
  return {defaultMesh, std::move(state)};
}

FailureOr<Layout> Partitioner::annotatedLayout(Value value) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  ShardingAttr sharding = annotation(value);
  Operation *anchor = value.getParentRegion()->getParentOp();
  if (!sharding) {
    if (!defaultMesh)
      return anchor->emitError("partitioning needs a spmd.mesh");
    return replicated(type);
  }
  return layoutOf(anchor, sharding);
}

FailureOr<Layout> Partitioner::layoutOf(Operation *anchor,
                                        ShardingAttr sharding) {
  auto known = layouts.find(sharding);
  if (known != layouts.end())
    return known->second;
  FailureOr<const MeshInfo *> mesh = meshFor(anchor, sharding.getMesh());
  if (failed(mesh))
    return failure();
  llvm::Expected<ShardState> state =
      toState((*mesh)->mesh, sharding.toTensorSharding());
  if (!state)
    return anchor->emitError() << llvm::toString(state.takeError());
  return layouts.try_emplace(sharding, *mesh, std::move(*state))
      .first->second;
}

FailureOr<std::optional<Layout>>
Partitioner::resultLayout(FunctionOpInterface function, unsigned i) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(function.getResultTypes()[i]);
  auto sharding = function.getResultAttrOfType<ShardingAttr>(
      i, SpmdDialect::kShardingAttrName);
  if (!tensor || !sharding || !tensor.hasStaticShape())
    return std::optional<Layout>();
  FailureOr<Layout> layout = layoutOf(function, sharding);
  if (failed(layout))
    return failure();
  return std::optional(*layout);
}

void Partitioner::set(Value global, LocalValue value) {
  assert(value.mesh && "a tensor lives on a mesh");
  assert(value.local.getType() ==
             localType(llvm::cast<RankedTensorType>(global.getType()),
                       *value.mesh, value.state) &&
         "the local value's type is its layout's");
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
                                 const ShardState &state) {
  if (!state.partial.empty() || !isRemadePerDevice(global))
    return {};
  // Scalars are mapped before the tensors made from them (dominance).
  Operation *def = global.getDefiningOp();
  RankedTensorType local =
      localType(llvm::cast<RankedTensorType>(global.getType()), mesh, state);
  Location loc = def->getLoc();
  if (llvm::isa<tensor::EmptyOp>(def))
    return tensor::EmptyOp::create(b, loc, local.getShape(),
                                   local.getElementType());
  if (auto splat = llvm::dyn_cast<tensor::SplatOp>(def))
    return tensor::SplatOp::create(b, loc, local,
                                   scalarMap.lookup(splat.getInput()));
  // A splat of any dialect (arith, tosa) is the same splat of local shape.
  SplatElementsAttr splat;
  if (matchPattern(global, m_Constant(&splat)))
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(local, splat.getSplatValue<Attribute>()));
  auto fill = llvm::cast<linalg::FillOp>(def);
  return linalg::FillOp::create(
             b, loc, ValueRange{scalarMap.lookup(fill.getInputs()[0])},
             ValueRange{rematerialize(fill.getOutputs()[0], mesh, state)})
      .getResult(0);
}

FailureOr<Value> Partitioner::get(Operation *user, Value global,
                                  const ShardState &state) {
  const LocalValue &current = values.at(global);
  if (current.state == state)
    return current.local;
  // The copies of `global` this point sees.
  SmallVector<Copy *> visible;
  auto made = copies.find(global);
  if (made != copies.end())
    for (Copy &copy : made->second)
      if (visibleFrom(copy.local.getParentBlock(), b.getInsertionBlock()))
        visible.push_back(&copy);
  for (Copy *copy : visible)
    if (copy->state == state)
      return copy->local;
  auto remember = [&](Value local, double cost = 0) {
    copies[global].push_back({state, local, cost});
    return local;
  };
  if (Value remade = rematerialize(global, *current.mesh, state))
    return remember(remade);
  auto type = llvm::cast<RankedTensorType>(global.getType());
  // Pending over axes the value is not pending over (or pending another
  // reduction, which is done first): reach the layout without them, then
  // keep the value on one device of each group (sums; every device keeps
  // it for max and min). No communication.
  bool sameKind = current.state.partial.empty() ||
                  current.state.reduction == state.reduction;
  ShardState kept = state;
  kept.partial.clear();
  if (sameKind)
    for (AxisIndex axis : current.state.partial)
      if (llvm::is_contained(state.partial, axis))
        kept.partial.push_back(axis);
  kept.reduction = kept.partial.empty() ? state.reduction
                                        : current.state.reduction;
  AxisList added;
  for (AxisIndex axis : state.partial)
    if (!llvm::is_contained(kept.partial, axis))
      added.push_back(axis);
  if (!added.empty()) {
    FailureOr<Value> whole = get(user, global, kept);
    if (failed(whole))
      return failure();
    Value local = *whole;
    if (state.reduction == ReductionKind::Sum)
      local = keepOnOne(
          b, user->getLoc(), local, *current.mesh, added,
          identityOf(b, state.reduction, type.getElementType()));
    return remember(local);
  }
  int64_t bytes = elementBytes(type.getElementType());
  const ReshardPlan *plan = planCache.plan(current.mesh->mesh, type.getShape(),
                                           bytes, current.state, state);
  // A copy already made may be closer to the layout wanted (a value needed
  // gathered and split another way is sliced from the gathered copy).
  const ReshardPlan *direct = plan;
  Value source = current.local;
  const ShardState *sourceState = &current.state;
  for (Copy *copy : visible) {
    const ReshardPlan *fromCopy = planCache.plan(
        current.mesh->mesh, type.getShape(), bytes, copy->state, state);
    if (fromCopy && (!plan || fromCopy->cost < plan->cost)) {
      plan = fromCopy;
      source = copy->local;
      sourceState = &copy->state;
    }
  }
  if (direct && !direct->fallback)
    if (Value early = reshardEarly(user, global, state, *direct, plan->cost))
      return early;
  if (!plan)
    return user->emitError()
           << "cannot reshard an operand from "
           << describe(current.mesh->mesh, current.mesh->symbol.getValue(),
                       current.state)
           << " to "
           << describe(current.mesh->mesh, current.mesh->symbol.getValue(),
                       state);
  if (plan->fallback)
    user->emitRemark() << "reshard planning stopped after "
                       << kReshardSearchBudget
                       << " layouts: gathering and slicing instead (exact, "
                          "not the fewest bytes)";
  LLVM_DEBUG({
    llvm::dbgs() << "spmd-partition: reshard for '" << user->getName()
                 << "' at ";
    llvm::dbgs() << placeOf(user->getLoc());
    llvm::dbgs() << ": "
                 << describe(current.mesh->mesh,
                             current.mesh->symbol.getValue(), *sourceState)
                 << " -> "
                 << describe(current.mesh->mesh,
                             current.mesh->symbol.getValue(), state)
                 << " by";
    for (const ReshardStep &step : plan->steps)
      llvm::dbgs() << " " << stringifyCollectiveKind(step.kind);
    llvm::dbgs() << " (" << llvm::format("%.1f", plan->cost) << " bytes)\n";
  });
  Value local =
      emitReshard(b, user->getLoc(), source, *current.mesh, type.getShape(),
                  *sourceState, *plan,
                  planCache.minBytes(current.mesh->mesh, type.getShape(),
                                     bytes, *sourceState, state));
  assert(local.getType() == localType(type, *current.mesh, state) &&
         "a reshard ends in the layout it was planned for");
  return remember(local, plan->cost);
}

Value Partitioner::reshardEarly(Operation *user, Value global,
                                const ShardState &state,
                                const ReshardPlan &direct, double planned) {
  LocalValue &current = values.at(global);
  Block *block = b.getInsertionBlock();
  auto made = copies.find(global);
  if (current.local.getParentBlock() != block || made == copies.end())
    return {};
  auto type = llvm::cast<RankedTensorType>(global.getType());
  int64_t bytes = elementBytes(type.getElementType());
  const DeviceMesh &mesh = current.mesh->mesh;
  // Earlier copies in this block that the new layout slices into for free.
  SmallVector<std::pair<Copy *, const ReshardPlan *>> derived;
  double saved = planned - direct.cost;
  for (Copy &copy : made->second) {
    if (copy.cost <= 0 || copy.local.getParentBlock() != block)
      continue;
    const ReshardPlan *slice =
        planCache.plan(mesh, type.getShape(), bytes, state, copy.state);
    if (!slice || slice->cost > 0)
      continue;
    derived.push_back({&copy, slice});
    saved += copy.cost;
  }
  if (derived.empty() || saved <= 0)
    return {};
  // Made where the value is, before any of those copies, which are then
  // remade from it.
  OpBuilder::InsertionGuard guard(b);
  if (Operation *def = current.local.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(block);
  Location loc = user->getLoc();
  Value early = emitReshard(
      b, loc, current.local, *current.mesh, type.getShape(), current.state,
      direct,
      planCache.minBytes(mesh, type.getShape(), bytes, current.state, state));
  for (auto [copy, slice] : derived) {
    Value remade = emitReshard(
        b, loc, early, *current.mesh, type.getShape(), state, *slice,
        planCache.minBytes(mesh, type.getShape(), bytes, state, copy->state));
    remadeCopies.push_back({copy->local, remade});
    copy->local = remade;
    copy->cost = 0;
  }
  made->second.push_back({state, early, direct.cost});
  return early;
}

LogicalResult Partitioner::partitionOp(Operation *op) {
  LogicalResult rebuilt = rebuildOp(op);
  assert((failed(rebuilt) || llvm::all_of(op->getResults(),
                                          [&](Value result) {
                                            return values.contains(result) ||
                                                   scalarMap.contains(result);
                                          })) &&
         "every result of a partitioned op has its local value");
  return rebuilt;
}

LogicalResult Partitioner::rebuildOp(Operation *op) {
  if (auto sharding = llvm::dyn_cast<ShardingOpInterface>(op)) {
    if (op->getNumResults() == 1 && sharding.onlyMovesThroughWindows())
      if (std::optional<OpShardingRule> rule = sharding.getShardingRule())
        movingRules.try_emplace(op->getResult(0), std::move(*rule));
    return sharding.partition(*this);
  }
  if (op->hasTrait<OpTrait::ConstantLike>())
    return partitionConstant(op, *this);
  if (auto branch = llvm::dyn_cast<RegionBranchOpInterface>(op))
    if (hasStructuredRegions(branch))
      return partitionRegionBranch(branch, *this);
  if (auto call = llvm::dyn_cast<CallOpInterface>(op))
    return partitionCall(call, *this);
  if (op->hasTrait<OpTrait::ReturnLike>() &&
      llvm::isa<FunctionOpInterface>(op->getParentOp()))
    return partitionReturn(op, *this);
  // Ops on scalars only are the same on every device (with regions, they
  // may read tensors from outside: computed whole, below).
  if (!touchesTensors(op) && op->getNumRegions() == 0) {
    b.clone(*op, scalarMap);
    return success();
  }
  return partitionByRule(op);
}

LogicalResult Partitioner::partitionBlock(Block &source) {
  for (Operation &op : source.without_terminator())
    if (failed(partitionOp(&op)))
      return failure();
  // The terminator of another op's region is rebuilt by that op
  // (partitionRegionBranch, a manual region's partition).
  if (!llvm::isa<FunctionOpInterface>(source.getParentOp()))
    return success();
  return partitionOp(source.getTerminator());
}

LogicalResult Partitioner::mapCaptured(Operation *op, IRMapping &mapping) {
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value value : captured) {
    if (mapping.contains(value))
      continue;
    auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
    if (!type || !has(value)) {
      mapping.map(value, current(value));
      continue;
    }
    FailureOr<Value> whole = get(op, value, replicated(type).second);
    if (failed(whole))
      return failure();
    mapping.map(value, *whole);
  }
  return success();
}

Operation *Partitioner::buildLocal(LocalRebuild &rebuild) {
  if (auto sharding = llvm::dyn_cast<ShardingOpInterface>(rebuild.getOp()))
    return sharding.buildLocal(rebuild);
  return cloneLocal(rebuild);
}

LogicalResult Partitioner::partitionReplicated(Operation *op) {
  SmallVector<Value> operands;
  const MeshInfo *mesh = nullptr;
  for (Value operand : op->getOperands()) {
    auto type = llvm::dyn_cast<RankedTensorType>(operand.getType());
    if (!type) {
      operands.push_back(current(operand));
      continue;
    }
    mesh = lookup(operand).mesh;
    FailureOr<Value> whole = get(op, operand, replicated(type).second);
    if (failed(whole))
      return failure();
    operands.push_back(*whole);
  }
  for (Value result : op->getResults())
    if (llvm::isa<RankedTensorType>(result.getType()) && !mesh) {
      FailureOr<Layout> layout = annotatedLayout(result);
      if (failed(layout))
        return failure();
      mesh = layout->first;
    }
  IRMapping mapping;
  for (auto [global, local] : llvm::zip_equal(op->getOperands(), operands))
    if (!llvm::isa<TensorType>(global.getType()))
      mapping.map(global, local);
  if (failed(mapCaptured(op, mapping)))
    return failure();
  SmallVector<Type> types(op->getResultTypes());
  // Computed whole: no loop is offset (named, as LocalRebuild keeps a
  // reference to it).
  auto noOffset = [](unsigned) { return Value(); };
  LocalRebuild rebuild(op, b, operands, mapping, types, /*rule=*/nullptr, {},
                       {}, noOffset);
  Operation *local = buildLocal(rebuild);
  if (!local)
    return failure();
  for (auto [result, localResult] :
       llvm::zip_equal(op->getResults(), local->getResults())) {
    auto type = llvm::dyn_cast<RankedTensorType>(result.getType());
    if (!type) {
      mapScalar(result, localResult);
      continue;
    }
    ShardState whole;
    whole.dims.resize(type.getRank());
    set(result, {localResult, mesh, std::move(whole)});
  }
  return success();
}

LogicalResult Partitioner::partitionFunction(func::FuncOp function) {
  if (!function.getBody().hasOneBlock())
    return function.emitOpError(kSeveralBlocks);
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
  for (auto [copy, remade] : remadeCopies)
    copy.replaceAllUsesWith(remade);
  remadeCopies.clear();
  // Calls resolved from here on find the partitioned function.
  symbols.invalidateSymbolTable(module);
  function.erase();
  // Values made for layouts nobody ended up using. Users come after their
  // operands, so a reverse walk frees chains at once; an erased op takes
  // its regions' ops with it, and those are not visited again.
  SmallVector<Operation *> ops;
  local.walk([&](Operation *op) { ops.push_back(op); });
  llvm::DenseSet<Operation *> erased;
  for (Operation *op : llvm::reverse(ops)) {
    if (erased.contains(op) || !op->use_empty() || !isOpTriviallyDead(op))
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
