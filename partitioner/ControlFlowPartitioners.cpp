//===- ControlFlowPartitioners.cpp - Functions, calls, loops, branches ----===//
//
// Values crossing a function, loop or branch boundary are brought to the
// layout propagation gave the boundary (the function's argument and result
// shardings, the loop's or branch's result shardings), so both sides agree.
//
//===----------------------------------------------------------------------===//

#include "partitioner/OpPartitioners.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::spmd;

/// The local values of `values` in the layouts `boundary` (values of the same
/// types whose annotations define the layouts) promises.
static FailureOr<SmallVector<Value>> toBoundary(Operation *user,
                                                ValueRange values,
                                                ValueRange boundary,
                                                Partitioner &p) {
  SmallVector<Value> locals;
  for (auto [value, edge] : llvm::zip_equal(values, boundary)) {
    if (!llvm::isa<RankedTensorType>(value.getType())) {
      locals.push_back(p.current(value));
      continue;
    }
    auto layout = p.annotatedLayout(edge);
    if (failed(layout))
      return failure();
    FailureOr<Value> local = p.get(user, value, layout->second);
    if (failed(local))
      return failure();
    locals.push_back(*local);
  }
  return locals;
}

/// Partitions `body` at the builder's insertion point and ends it with an
/// scf.yield of its yielded values in the layouts of `boundary`.
static LogicalResult partitionYieldingBody(Block &body, ValueRange boundary,
                                           Partitioner &p) {
  if (failed(p.partitionBlock(body)))
    return failure();
  auto yield = llvm::cast<scf::YieldOp>(body.getTerminator());
  FailureOr<SmallVector<Value>> yielded =
      toBoundary(yield, yield.getOperands(), boundary, p);
  if (failed(yielded))
    return failure();
  scf::YieldOp::create(p.builder(), yield.getLoc(), *yielded);
  return success();
}

/// Records `locals` as the local forms of `globals`, in their annotated
/// layouts.
static LogicalResult bindAnnotated(ValueRange globals, ValueRange locals,
                                   Partitioner &p) {
  for (auto [global, local] : llvm::zip_equal(globals, locals)) {
    if (!llvm::isa<RankedTensorType>(global.getType())) {
      p.scalars().map(global, local);
      continue;
    }
    auto layout = p.annotatedLayout(global);
    if (failed(layout))
      return failure();
    p.set(global, {local, layout->first, layout->second});
  }
  return success();
}

/// The local types of `globals` in their annotated layouts.
static FailureOr<SmallVector<Type>> annotatedTypes(ValueRange globals,
                                                   Partitioner &p) {
  SmallVector<Type> types;
  for (Value global : globals) {
    auto type = llvm::dyn_cast<RankedTensorType>(global.getType());
    if (!type) {
      types.push_back(global.getType());
      continue;
    }
    auto layout = p.annotatedLayout(global);
    if (failed(layout))
      return failure();
    types.push_back(
        Partitioner::localType(type, *layout->first, layout->second));
  }
  return types;
}

static LogicalResult partitionReturn(Operation *op, Partitioner &p) {
  auto function = op->getParentOfType<func::FuncOp>();
  SmallVector<Value> locals;
  for (auto [i, value] : llvm::enumerate(op->getOperands())) {
    auto layout = p.resultLayout(function, i);
    if (failed(layout))
      return failure();
    if (!*layout) {
      locals.push_back(p.current(value));
      continue;
    }
    FailureOr<Value> local = p.get(op, value, (*layout)->second);
    if (failed(local))
      return failure();
    locals.push_back(*local);
  }
  func::ReturnOp::create(p.builder(), op->getLoc(), locals);
  return success();
}

static LogicalResult partitionCall(Operation *op, Partitioner &p) {
  auto call = llvm::cast<func::CallOp>(op);
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      op, call.getCalleeAttr());
  if (!callee || callee.isExternal())
    return partitionReplicated(op, p);
  FailureOr<SmallVector<Value>> operands =
      toBoundary(op, call.getOperands(), callee.getArguments(), p);
  if (failed(operands))
    return failure();
  // The callee's result types after partitioning, from its result shardings.
  SmallVector<Type> resultTypes;
  SmallVector<std::pair<const MeshInfo *, ::spmd::ShardState>> layouts;
  for (auto [i, type] : llvm::enumerate(call.getResultTypes())) {
    auto layout = p.resultLayout(callee, i);
    if (failed(layout))
      return failure();
    if (!*layout) {
      resultTypes.push_back(type);
      layouts.push_back({nullptr, {}});
      continue;
    }
    resultTypes.push_back(
        Partitioner::localType(llvm::cast<RankedTensorType>(type),
                               *(*layout)->first, (*layout)->second));
    layouts.push_back(**layout);
  }
  auto local = func::CallOp::create(
      p.builder(), op->getLoc(), call.getCalleeAttr(), resultTypes, *operands);
  for (auto [result, localResult, layout] :
       llvm::zip_equal(call.getResults(), local.getResults(), layouts)) {
    if (layout.first)
      p.set(result, {localResult, layout.first, layout.second});
    else
      p.scalars().map(result, localResult);
  }
  return success();
}

static LogicalResult partitionFor(Operation *op, Partitioner &p) {
  auto loop = llvm::cast<scf::ForOp>(op);
  OpBuilder &b = p.builder();
  FailureOr<SmallVector<Value>> inits =
      toBoundary(op, loop.getInitArgs(), loop.getResults(), p);
  if (failed(inits))
    return failure();
  auto local = scf::ForOp::create(
      b, loop.getLoc(), p.current(loop.getLowerBound()),
      p.current(loop.getUpperBound()), p.current(loop.getStep()), *inits);
  p.scalars().map(loop.getInductionVar(), local.getInductionVar());
  if (failed(bindAnnotated(loop.getRegionIterArgs(), local.getRegionIterArgs(),
                           p)))
    return failure();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(local.getBody());
  // The builder made an empty yield when there are no iteration values.
  if (!local.getBody()->empty())
    local.getBody()->getTerminator()->erase();
  if (failed(partitionYieldingBody(*loop.getBody(), loop.getResults(), p)))
    return failure();
  b.setInsertionPointAfter(local);
  return bindAnnotated(loop.getResults(), local.getResults(), p);
}

/// scf.if, scf.index_switch, scf.execute_region: rebuilt with the same
/// (scalar) operands and attributes, each region partitioned and yielding
/// in the results' layouts.
LogicalResult mlir::spmd::partitionBranch(Operation *op, Partitioner &p) {
  OpBuilder &b = p.builder();
  FailureOr<SmallVector<Type>> types = annotatedTypes(op->getResults(), p);
  if (failed(types))
    return failure();
  for (Value operand : op->getOperands())
    if (llvm::isa<ShapedType>(operand.getType()))
      return op->emitError("partitioning a branch on a tensor operand is not "
                           "supported");
  OperationState state(op->getLoc(), op->getName());
  for (Value operand : op->getOperands())
    state.addOperands(p.current(operand));
  for (NamedAttribute attr : op->getAttrs())
    if (attr.getName() != SpmdDialect::kShardingAttrName &&
        attr.getName() != SpmdDialect::kOriginsAttrName)
      state.addAttribute(attr.getName(), attr.getValue());
  state.addTypes(*types);
  for (unsigned i = 0; i < op->getNumRegions(); ++i)
    state.addRegion();
  Operation *local = b.create(state);
  for (auto [source, target] :
       llvm::zip(op->getRegions(), local->getRegions())) {
    if (source.empty())
      continue;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&target.emplaceBlock());
    if (failed(partitionYieldingBody(source.front(), op->getResults(), p)))
      return failure();
  }
  return bindAnnotated(op->getResults(), local->getResults(), p);
}

/// scf.while: the values carried into the condition region and those
/// passed to the body both take the loop's result layouts (propagation ties
/// them all), so this handles loops whose carried types equal the result
/// types, as loops written in one carried form are.
static LogicalResult partitionWhile(Operation *op, Partitioner &p) {
  auto loop = llvm::cast<scf::WhileOp>(op);
  if (loop.getInits().getTypes() != loop.getResultTypes())
    return op->emitError("partitioning scf.while needs the carried values "
                         "to have the result types");
  OpBuilder &b = p.builder();
  FailureOr<SmallVector<Value>> inits =
      toBoundary(op, loop.getInits(), loop.getResults(), p);
  FailureOr<SmallVector<Type>> types = annotatedTypes(loop.getResults(), p);
  if (failed(inits) || failed(types))
    return failure();
  auto local = scf::WhileOp::create(b, loop.getLoc(), *types, *inits);
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Location> locs(types->size(), loop.getLoc());
  Block *before = b.createBlock(&local.getBefore(), {}, *types, locs);
  if (failed(
          bindAnnotated(loop.getBeforeArguments(), before->getArguments(), p)))
    return failure();
  if (failed(p.partitionBlock(loop.getBefore().front())))
    return failure();
  scf::ConditionOp condition = loop.getConditionOp();
  FailureOr<SmallVector<Value>> passed =
      toBoundary(condition, condition.getArgs(), loop.getResults(), p);
  if (failed(passed))
    return failure();
  scf::ConditionOp::create(b, condition.getLoc(),
                           p.current(condition.getCondition()), *passed);
  Block *after = b.createBlock(&local.getAfter(), {}, *types, locs);
  if (failed(bindAnnotated(loop.getAfterArguments(), after->getArguments(), p)))
    return failure();
  if (failed(
          partitionYieldingBody(loop.getAfter().front(), loop.getResults(), p)))
    return failure();
  b.setInsertionPointAfter(local);
  return bindAnnotated(loop.getResults(), local.getResults(), p);
}

static LogicalResult partitionConstraint(Operation *op, Partitioner &p) {
  auto constraint = llvm::cast<ShardingConstraintOp>(op);
  FailureOr<const MeshInfo *> mesh =
      p.meshFor(op, constraint.getSharding().getMesh());
  if (failed(mesh))
    return failure();
  ::spmd::ShardState state = llvm::cantFail(::spmd::toState(
      (*mesh)->mesh, constraint.getSharding().toTensorSharding()));
  FailureOr<Value> local = p.get(op, constraint.getInput(), state);
  if (failed(local))
    return failure();
  p.set(constraint.getResult(), {*local, *mesh, state});
  return success();
}

/// Splat constants are made locally in their annotated layout; other
/// constants are the same on every device and sliced on use (no
/// communication).
static LogicalResult partitionConstant(Operation *op, Partitioner &p) {
  auto constant = llvm::cast<arith::ConstantOp>(op);
  auto type = llvm::dyn_cast<RankedTensorType>(constant.getType());
  if (!type) {
    p.builder().clone(*op, p.scalars());
    return success();
  }
  auto layout = p.annotatedLayout(constant.getResult());
  if (failed(layout))
    return failure();
  auto splat = llvm::dyn_cast<SplatElementsAttr>(constant.getValue());
  if (splat) {
    RankedTensorType localType =
        Partitioner::localType(type, *layout->first, layout->second);
    Value local = arith::ConstantOp::create(
        p.builder(), op->getLoc(),
        DenseElementsAttr::get(localType, splat.getSplatValue<Attribute>()));
    ::spmd::ShardState state = layout->second;
    state.partial.clear();
    p.set(constant.getResult(), {local, layout->first, state});
    return success();
  }
  Operation *global = p.builder().clone(*op);
  global->removeAttr(SpmdDialect::kShardingAttrName);
  global->removeAttr(SpmdDialect::kOriginsAttrName);
  ::spmd::ShardState replicated;
  replicated.dims.resize(type.getRank());
  p.set(constant.getResult(),
        {global->getResult(0), layout->first, replicated});
  return success();
}

void mlir::spmd::registerControlFlowPartitioners(
    OpPartitionerRegistry &registry) {
  registry.add(func::ReturnOp::getOperationName(), partitionReturn);
  registry.add(func::CallOp::getOperationName(), partitionCall);
  registry.add(scf::ForOp::getOperationName(), partitionFor);
  registry.add(scf::WhileOp::getOperationName(), partitionWhile);
  registry.add(ShardingConstraintOp::getOperationName(), partitionConstraint);
  registry.add(arith::ConstantOp::getOperationName(), partitionConstant);
  // A constant global is whole on every device, sliced on use.
  registry.add(ml_program::GlobalLoadConstOp::getOperationName(),
               partitionReplicated);
}
