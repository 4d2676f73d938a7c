//===- ShardingPropagation.cpp - Propagation over a module ----------------===//

#include "passes/ShardingPropagation.h"

#include "ir/ShardingRules.h"
#include "ir/SpmdOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::spmd;
using ::spmd::PropagationGraph;
using NodeId = PropagationGraph::NodeId;

namespace {
class ModulePropagation {
public:
  ModulePropagation(ModuleOp module, std::vector<MeshOp> meshOps)
      : module(module), meshOps(std::move(meshOps)), graph(meshList()),
        symbols(module) {}

  LogicalResult build();
  void write(bool debugOrigins);
  int64_t run(::spmd::PropagationStrategy strategy) {
    return graph.propagate(strategy);
  }

private:
  std::vector<std::pair<std::string, ::spmd::Mesh>> meshList() {
    std::vector<std::pair<std::string, ::spmd::Mesh>> meshes;
    for (MeshOp mesh : meshOps)
      meshes.emplace_back(mesh.getSymName().str(), mesh.getMesh().toMesh());
    return meshes;
  }

  NodeId nodeFor(Value value);
  /// Identity edge: the tensors among `values` share their sharding.
  void tie(ArrayRef<Value> values);
  void tieNodes(ArrayRef<NodeId> ids, ArrayRef<int64_t> shape);
  LogicalResult setUser(NodeId node, ShardingAttr sharding, Operation *op,
                        std::string origin);
  LogicalResult visit(Operation *op);
  int meshIndex(FlatSymbolRefAttr mesh);
  ArrayAttr originsAttr(NodeId node);
  ShardingAttr shardingAttr(NodeId node);

  ModuleOp module;
  std::vector<MeshOp> meshOps;
  PropagationGraph graph;
  SymbolTable symbols;
  llvm::DenseMap<Value, NodeId> nodes;
  llvm::DenseMap<Operation *, SmallVector<NodeId>> resultSlots;
  std::vector<std::string> originNames;
  unsigned defaultMesh = 0;
  bool defaultMeshChosen = false;
};
} // namespace

static std::string describe(Location loc) {
  if (auto file = llvm::dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

int ModulePropagation::meshIndex(FlatSymbolRefAttr mesh) {
  for (auto [i, op] : llvm::enumerate(meshOps))
    if (op.getSymName() == mesh.getValue())
      return i;
  return -1;
}

NodeId ModulePropagation::nodeFor(Value value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return PropagationGraph::kScalar;
  auto [it, inserted] = nodes.try_emplace(value, 0);
  if (inserted)
    it->second = graph.addNode(type.getShape());
  return it->second;
}

void ModulePropagation::tieNodes(ArrayRef<NodeId> ids,
                                 ArrayRef<int64_t> shape) {
  SmallVector<NodeId> distinct;
  for (NodeId id : ids)
    if (id != PropagationGraph::kScalar && !llvm::is_contained(distinct, id))
      distinct.push_back(id);
  if (distinct.size() >= 2)
    graph.addEdge(::spmd::ShardingRule::identity(shape, distinct.size()),
                  distinct);
}

void ModulePropagation::tie(ArrayRef<Value> values) {
  SmallVector<NodeId> ids;
  std::optional<SmallVector<int64_t>> shape;
  for (Value value : values) {
    NodeId id = nodeFor(value);
    if (id == PropagationGraph::kScalar)
      continue;
    auto valueShape = rules::staticShape(value);
    if (shape && *shape != *valueShape)
      continue; // Types of tied values agree in valid IR.
    shape = valueShape;
    ids.push_back(id);
  }
  if (shape)
    tieNodes(ids, *shape);
}

LogicalResult ModulePropagation::setUser(NodeId node, ShardingAttr sharding,
                                         Operation *op, std::string origin) {
  if (node == PropagationGraph::kScalar)
    return success();
  if (!defaultMeshChosen && meshIndex(sharding.getMesh()) >= 0) {
    defaultMesh = meshIndex(sharding.getMesh());
    defaultMeshChosen = true;
  }
  originNames.push_back(std::move(origin));
  if (llvm::Error err = graph.setUserSharding(
          node, sharding.toTensorSharding(), originNames.size() - 1))
    return op->emitError() << llvm::toString(std::move(err));
  return success();
}

LogicalResult ModulePropagation::build() {
  // Function results are nodes of their own: a returned value may carry a
  // different sharding than the function promises.
  for (auto function : module.getOps<func::FuncOp>()) {
    SmallVector<NodeId> &slots = resultSlots[function];
    for (Type type : function.getResultTypes()) {
      auto tensor = llvm::dyn_cast<RankedTensorType>(type);
      slots.push_back(tensor && tensor.hasStaticShape()
                          ? graph.addNode(tensor.getShape())
                          : PropagationGraph::kScalar);
    }
  }
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    std::string name = "@" + function.getSymName().str();
    for (BlockArgument arg : function.getArguments()) {
      NodeId node = nodeFor(arg);
      if (auto sharding = function.getArgAttrOfType<ShardingAttr>(
              arg.getArgNumber(), SpmdDialect::kShardingAttrName))
        if (failed(setUser(node, sharding, function,
                           name + " arg " + std::to_string(arg.getArgNumber()))))
          return failure();
    }
    for (auto [i, slot] : llvm::enumerate(resultSlots[function]))
      if (auto sharding = function.getResultAttrOfType<ShardingAttr>(
              i, SpmdDialect::kShardingAttrName))
        if (failed(setUser(slot, sharding, function,
                           name + " result " + std::to_string(i))))
          return failure();
    WalkResult walk = function.walk<WalkOrder::PreOrder>([&](Operation *op) {
      return failed(visit(op)) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  return success();
}

static bool touchesTensors(Operation *op) {
  auto isTensor = [](Type t) { return llvm::isa<TensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

LogicalResult ModulePropagation::visit(Operation *op) {
  if (auto ret = llvm::dyn_cast<func::ReturnOp>(op)) {
    auto &slots = resultSlots[op->getParentOp()];
    for (auto [value, slot] : llvm::zip(ret.getOperands(), slots))
      if (auto shape = rules::staticShape(value))
        tieNodes({nodeFor(value), slot}, *shape);
    return success();
  }
  if (auto call = llvm::dyn_cast<func::CallOp>(op)) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    if (callee && !callee.isExternal()) {
      for (auto [operand, arg] :
           llvm::zip(call.getOperands(), callee.getArguments()))
        tie({operand, arg});
      for (auto [result, slot] :
           llvm::zip(call.getResults(), resultSlots[callee]))
        if (auto shape = rules::staticShape(result))
          tieNodes({nodeFor(result), slot}, *shape);
      return success();
    }
  } else if (auto loop = llvm::dyn_cast<scf::ForOp>(op)) {
    auto yield = llvm::cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [i, init] : llvm::enumerate(loop.getInitArgs()))
      tie({init, loop.getRegionIterArgs()[i], yield.getOperand(i),
           loop.getResult(i)});
    return success();
  } else if (auto loop = llvm::dyn_cast<scf::WhileOp>(op)) {
    scf::ConditionOp condition = loop.getConditionOp();
    scf::YieldOp yield = loop.getYieldOp();
    for (auto [i, init] : llvm::enumerate(loop.getInits()))
      tie({init, loop.getBeforeArguments()[i], yield.getOperand(i)});
    for (auto [i, result] : llvm::enumerate(loop.getResults()))
      tie({condition.getArgs()[i], loop.getAfterArguments()[i], result});
    return success();
  } else if (auto branch = llvm::dyn_cast<scf::IfOp>(op)) {
    for (auto [i, result] : llvm::enumerate(branch.getResults())) {
      SmallVector<Value> tied = {result, branch.thenYield().getOperand(i)};
      if (!branch.getElseRegion().empty())
        tied.push_back(branch.elseYield().getOperand(i));
      tie(tied);
    }
    return success();
  } else if (llvm::isa<scf::YieldOp, scf::ConditionOp>(op)) {
    return success(); // Tied by the parent.
  } else if (auto constraint = llvm::dyn_cast<ShardingConstraintOp>(op)) {
    tie({constraint.getInput(), constraint.getResult()});
    return setUser(nodeFor(constraint.getResult()), constraint.getSharding(),
                   op, "constraint at " + describe(op->getLoc()));
  }
  if (op->getDialect() && llvm::isa<SpmdDialect>(op->getDialect()))
    return success();
  if (!touchesTensors(op))
    return success();

  // Shardings already on the op's results are kept as written.
  if (auto written = op->getAttrOfType<ShardingPerValueAttr>(
          SpmdDialect::kShardingAttrName))
    for (auto [result, sharding] :
         llvm::zip(op->getResults(), written.getShardings()))
      if (failed(setUser(nodeFor(result), sharding, op,
                         op->getName().getStringRef().str() + " at " +
                             describe(op->getLoc()))))
        return failure();

  if (std::optional<::spmd::ShardingRule> rule =
          ShardingRuleRegistry::get().ruleFor(op)) {
    SmallVector<NodeId> ids;
    for (Value operand : op->getOperands())
      ids.push_back(nodeFor(operand));
    for (Value result : op->getResults())
      ids.push_back(nodeFor(result));
    graph.addEdge(std::move(*rule), std::move(ids));
    return success();
  }
  op->emitRemark() << "no sharding rule for '" << op->getName()
                   << "': its operands and results are replicated";
  for (Value result : op->getResults())
    if (NodeId node = nodeFor(result); node != PropagationGraph::kScalar)
      graph.setReplicated(node, defaultMesh);
  return success();
}

ShardingAttr ModulePropagation::shardingAttr(NodeId node) {
  MLIRContext *context = module.getContext();
  if (node == PropagationGraph::kScalar)
    return ShardingAttr::get(context, ::spmd::TensorSharding::replicatedOf(
                                          meshOps[defaultMesh].getSymName().str(), 0));
  return ShardingAttr::get(context, graph.sharding(node, defaultMesh));
}

ArrayAttr ModulePropagation::originsAttr(NodeId node) {
  Builder builder(module.getContext());
  SmallVector<Attribute> names;
  if (node != PropagationGraph::kScalar)
    for (int origin : graph.origins(node))
      names.push_back(builder.getStringAttr(
          origin == PropagationGraph::kNoOrigin ? "" : originNames[origin]));
  return builder.getArrayAttr(names);
}

void ModulePropagation::write(bool debugOrigins) {
  MLIRContext *context = module.getContext();
  Builder builder(context);
  StringRef shardingName = SpmdDialect::kShardingAttrName;
  StringRef originsName = SpmdDialect::kOriginsAttrName;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    for (BlockArgument arg : function.getArguments()) {
      NodeId node = nodeFor(arg);
      if (node == PropagationGraph::kScalar)
        continue;
      function.setArgAttr(arg.getArgNumber(), shardingName, shardingAttr(node));
      if (debugOrigins)
        function.setArgAttr(arg.getArgNumber(), originsName, originsAttr(node));
    }
    for (auto [i, slot] : llvm::enumerate(resultSlots[function])) {
      if (slot == PropagationGraph::kScalar)
        continue;
      function.setResultAttr(i, shardingName, shardingAttr(slot));
      if (debugOrigins)
        function.setResultAttr(i, originsName, originsAttr(slot));
    }
    function.walk([&](Operation *op) {
      if (llvm::isa<SpmdDialect>(op->getDialect()) ||
          llvm::none_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>))
        return;
      SmallVector<ShardingAttr> shardings;
      SmallVector<Attribute> origins;
      for (Value result : op->getResults()) {
        NodeId node = nodeFor(result);
        shardings.push_back(shardingAttr(node));
        origins.push_back(originsAttr(node));
      }
      op->setAttr(shardingName, ShardingPerValueAttr::get(context, shardings));
      if (debugOrigins)
        op->setAttr(originsName, builder.getArrayAttr(origins));
    });
  }
}

LogicalResult mlir::spmd::propagateShardings(ModuleOp module,
                                             const PropagationOptions &options) {
  std::vector<MeshOp> meshes(module.getOps<MeshOp>().begin(),
                             module.getOps<MeshOp>().end());
  if (meshes.empty())
    return success(); // Nothing names a mesh: nothing to propagate.
  ModulePropagation propagation(module, std::move(meshes));
  if (failed(propagation.build()))
    return failure();
  propagation.run(options.strategy);
  propagation.write(options.debugOrigins);
  return success();
}
