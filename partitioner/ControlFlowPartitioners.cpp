//===- ControlFlowPartitioners.cpp - Branches, loops, calls, returns ------===//
//
// Control flow is recognised by MLIR's interfaces, whatever its dialect:
// values crossing a region, call or return boundary are brought to the
// layout propagation gave the boundary (a flow class's, the callee's
// argument and result shardings), so both sides agree. Splat constants
// (ConstantLike) are made where they are used; others are whole on every
// device and sliced where they are used split.
//
//===----------------------------------------------------------------------===//

#include "ir/Namespaces.h"
#include "ir/RegionFlow.h"
#include "partitioner/Partitioner.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"

using namespace mlir;
using namespace mlir::spmd;

/// The local forms of `user`'s operands, tensors in the layouts `layoutOf`
/// gives each operand (replicated when it gives none).
static FailureOr<SmallVector<Value>>
operandsIn(Operation *user,
           llvm::function_ref<std::optional<Layout>(OpOperand &)> layoutOf,
           Partitioner &p) {
  SmallVector<Value> locals;
  for (OpOperand &operand : user->getOpOperands()) {
    Value value = operand.get();
    auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
    if (!type) {
      locals.push_back(p.current(value));
      continue;
    }
    std::optional<Layout> layout = layoutOf(operand);
    FailureOr<Value> local =
        p.get(user, value, layout ? layout->second : p.replicated(type).second);
    if (failed(local))
      return failure();
    locals.push_back(*local);
  }
  return locals;
}

/// Records the local values `locals` of the region arguments or results
/// `globals`, tensors in the layouts `layoutOf` gives them.
static void bind(ValueRange globals, ValueRange locals,
                 llvm::function_ref<std::optional<Layout>(Value)> layoutOf,
                 Partitioner &p) {
  for (auto [global, local] : llvm::zip_equal(globals, locals)) {
    auto type = llvm::dyn_cast<RankedTensorType>(global.getType());
    if (!type) {
      p.mapScalar(global, local);
      continue;
    }
    Layout layout = layoutOf(global).value_or(p.replicated(type));
    p.set(global, {local, layout.first, layout.second});
  }
}

static Type localTypeOf(Value global,
                        llvm::function_ref<std::optional<Layout>(Value)> layoutOf,
                        Partitioner &p) {
  auto type = llvm::dyn_cast<RankedTensorType>(global.getType());
  if (!type)
    return global.getType();
  Layout layout = layoutOf(global).value_or(p.replicated(type));
  return localType(type, *layout.first, layout.second);
}

/// `op` without its regions and sharding attributes, with `operands`.
static Operation *cloneShell(Operation *op, ValueRange operands,
                             OpBuilder &b) {
  Operation *local = op->cloneWithoutRegions();
  local->setOperands(operands);
  local->removeAttr(SpmdDialect::kShardingAttrName);
  local->removeAttr(SpmdDialect::kOriginsAttrName);
  b.insert(local);
  return local;
}

LogicalResult mlir::spmd::partitionRegionBranch(RegionBranchOpInterface branch,
                                                Partitioner &p) {
  Operation *op = branch;
  // One layout per carried value: the sharding propagation gave its result,
  // else the first value passed in that has one of its own (an op result or
  // a function argument; region arguments have none).
  llvm::DenseMap<Value, Layout> inputLayouts;
  llvm::DenseMap<OpOperand *, Layout> operandLayouts;
  for (const CarriedValue &carried : regionFlowClasses(branch)) {
    Value anchor;
    for (Value input : carried.inputs)
      if (!anchor && input.getDefiningOp() == op)
        anchor = input;
    for (OpOperand *operand : carried.operands) {
      auto arg = llvm::dyn_cast<BlockArgument>(operand->get());
      if (!anchor && (!arg || llvm::isa<FunctionOpInterface>(
                                  arg.getOwner()->getParentOp())))
        anchor = operand->get();
    }
    if (!anchor || !llvm::isa<RankedTensorType>(anchor.getType()))
      continue;
    FailureOr<Layout> layout = p.annotatedLayout(anchor);
    if (failed(layout))
      return failure();
    for (Value input : carried.inputs)
      inputLayouts[input] = *layout;
    for (OpOperand *operand : carried.operands)
      operandLayouts[operand] = *layout;
  }
  auto layoutOf = [&](Value input) -> std::optional<Layout> {
    auto it = inputLayouts.find(input);
    if (it == inputLayouts.end())
      return std::nullopt;
    return it->second;
  };
  auto operandLayout = [&](OpOperand &operand) -> std::optional<Layout> {
    auto it = operandLayouts.find(&operand);
    if (it == operandLayouts.end())
      return std::nullopt;
    return it->second;
  };

  OpBuilder &b = p.builder();
  FailureOr<SmallVector<Value>> operands = operandsIn(op, operandLayout, p);
  if (failed(operands))
    return failure();
  Operation *local = cloneShell(op, *operands, b);
  for (auto [result, localResult] :
       llvm::zip_equal(op->getResults(), local->getResults()))
    localResult.setType(localTypeOf(result, layoutOf, p));

  for (auto [source, target] :
       llvm::zip_equal(op->getRegions(), local->getRegions())) {
    if (source.empty())
      continue;
    Block &block = source.front();
    SmallVector<Type> argTypes;
    SmallVector<Location> argLocs;
    for (BlockArgument arg : block.getArguments()) {
      argTypes.push_back(localTypeOf(arg, layoutOf, p));
      argLocs.push_back(arg.getLoc());
    }
    OpBuilder::InsertionGuard guard(b);
    Block *body = b.createBlock(&target, {}, argTypes, argLocs);
    bind(block.getArguments(), body->getArguments(), layoutOf, p);
    if (failed(p.partitionBlock(block)))
      return failure();
    // The terminator passes each carried value on in its class's layout.
    Operation *terminator = block.getTerminator();
    FailureOr<SmallVector<Value>> passed =
        operandsIn(terminator, operandLayout, p);
    if (failed(passed))
      return failure();
    cloneShell(terminator, *passed, b);
  }
  bind(op->getResults(), local->getResults(), layoutOf, p);
  return success();
}

LogicalResult mlir::spmd::partitionCall(CallOpInterface call, Partitioner &p) {
  Operation *op = call;
  auto callee = llvm::dyn_cast_or_null<FunctionOpInterface>(
      call.resolveCallableInTable(&p.symbolTables()));
  if (!callee || callee.isExternal())
    return p.partitionReplicated(op);
  // The callee's layouts: its argument annotations (by operand: one value
  // may be passed as two differently sharded arguments) and result
  // shardings.
  llvm::DenseMap<OpOperand *, Layout> layouts;
  for (auto [operand, arg] :
       llvm::zip(call.getArgOperandsMutable(), callee.getArguments()))
    if (llvm::isa<RankedTensorType>(arg.getType())) {
      FailureOr<Layout> layout = p.annotatedLayout(arg);
      if (failed(layout))
        return failure();
      layouts[&operand] = *layout;
    }
  SmallVector<std::optional<Layout>> results;
  for (unsigned i = 0; i < op->getNumResults(); ++i) {
    FailureOr<std::optional<Layout>> layout = p.resultLayout(callee, i);
    if (failed(layout))
      return failure();
    results.push_back(*layout);
  }
  auto layoutOf = [&](OpOperand &operand) -> std::optional<Layout> {
    auto it = layouts.find(&operand);
    if (it == layouts.end())
      return std::nullopt;
    return it->second;
  };
  FailureOr<SmallVector<Value>> operands = operandsIn(op, layoutOf, p);
  if (failed(operands))
    return failure();
  Operation *local = cloneShell(op, *operands, p.builder());
  for (auto [result, localResult, layout] :
       llvm::zip_equal(op->getResults(), local->getResults(), results)) {
    auto type = llvm::dyn_cast<RankedTensorType>(result.getType());
    if (!type || !layout) {
      // Results without a sharding pass through as they are.
      if (type)
        p.set(result, {localResult, p.replicated(type).first,
                       p.replicated(type).second});
      else
        p.mapScalar(result, localResult);
      continue;
    }
    localResult.setType(localType(type, *layout->first, layout->second));
    p.set(result, {localResult, layout->first, layout->second});
  }
  return success();
}

LogicalResult mlir::spmd::partitionReturn(Operation *op, Partitioner &p) {
  auto function = llvm::cast<FunctionOpInterface>(op->getParentOp());
  SmallVector<Value> locals;
  for (auto [i, value] : llvm::enumerate(op->getOperands())) {
    FailureOr<std::optional<Layout>> layout = p.resultLayout(function, i);
    if (failed(layout))
      return failure();
    auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
    if (!*layout && (!type || !type.hasStaticShape())) {
      locals.push_back(p.current(value));
      continue;
    }
    // A result without a sharding is whole, as the function's type says.
    FailureOr<Value> local = p.get(
        op, value, *layout ? (*layout)->second : p.replicated(type).second);
    if (failed(local))
      return failure();
    locals.push_back(*local);
  }
  cloneShell(op, locals, p.builder());
  return success();
}

LogicalResult mlir::spmd::partitionConstant(Operation *op, Partitioner &p) {
  Attribute value;
  if (op->getNumResults() != 1 || !matchPattern(op, m_Constant(&value)))
    return p.partitionReplicated(op);
  Value result = op->getResult(0);
  auto type = llvm::dyn_cast<RankedTensorType>(result.getType());
  if (!type) {
    p.mapScalar(result, p.builder().clone(*op)->getResult(0));
    return success();
  }
  FailureOr<Layout> layout = p.annotatedLayout(result);
  if (failed(layout))
    return failure();
  ShardState state = layout->second;
  state.partial.clear();
  if (Value made = p.rematerialize(result, *layout->first, state)) {
    p.set(result, {made, layout->first, state});
    return success();
  }
  // The same on every device: whole, sliced where it is used split.
  Operation *global = p.builder().clone(*op);
  global->removeAttr(SpmdDialect::kShardingAttrName);
  global->removeAttr(SpmdDialect::kOriginsAttrName);
  ShardState whole;
  whole.dims.resize(type.getRank());
  p.set(result, {global->getResult(0), layout->first, whole});
  return success();
}
