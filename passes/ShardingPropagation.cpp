//===- ShardingPropagation.cpp - Propagation over a module ----------------===//

#include "passes/ShardingPropagation.h"

#include "ir/FunctionAttrs.h"
#include "ir/FunctionMesh.h"
#include "ir/Locations.h"
#include "ir/Namespaces.h"
#include "ir/RegionFlow.h"
#include "ir/RemadePerDevice.h"
#include "ir/ShardingModels.h"
#include "ir/SpmdOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "absl/container/flat_hash_map.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::spmd;
using NodeId = PropagationGraph::NodeId;

namespace {
class ModulePropagation {
public:
  ModulePropagation(ModuleOp module, std::vector<MeshOp> meshOps)
      : module(module), meshOps(std::move(meshOps)), graph(meshList()) {}

  LogicalResult build();
  void write(bool debugOrigins);
  /// Propagates; fails (with errors on the ops) where an op's tensors are
  /// sharded on different meshes, which no partitioning can implement.
  LogicalResult run(PropagationStrategy strategy);

private:
  std::vector<std::pair<std::string, DeviceMesh>> meshList() {
    std::vector<std::pair<std::string, DeviceMesh>> meshes;
    for (MeshOp mesh : meshOps)
      meshes.emplace_back(mesh.getSymName().str(), mesh.getMesh().toMesh());
    return meshes;
  }

  NodeId nodeFor(Value value);
  /// The node of one use: a value free in any layout
  /// (RemadePerDeviceCache::isFreeInAnyLayout) and of several uses gets a
  /// node per use unless the user sharded it, so
  /// ops sharing one zero-filled init or one constant are not forced to one
  /// sharding (each use is remade or sliced in its own).
  NodeId useNode(OpOperand &use);
  LogicalResult visitManualComputation(ManualComputationOp op);
  /// The node `value` is annotated with: its own, or when propagation
  /// reached only its uses (a value remade per use), the one sharding those
  /// agree on.
  NodeId shownNode(Value value);
  /// Identity edge: the tensors among `values` share their sharding.
  void tie(ArrayRef<Value> values);
  void tieNodes(ArrayRef<NodeId> ids, ArrayRef<int64_t> shape);
  void addEdge(ShardingRule &&rule, SmallVector<NodeId> ids,
               unsigned numOperands);
  LogicalResult setUser(NodeId node, ShardingAttr sharding, Location loc,
                        std::string origin);
  LogicalResult visit(Operation *op);
  int meshIndex(FlatSymbolRefAttr mesh);
  ArrayAttr originsAttr(NodeId node);
  /// Sets `op`'s attribute `name` to `shardings`, one per result.
  void writeShardings(Operation *op, StringAttr name,
                      ArrayRef<ShardingAttr> shardings);
  /// The sharding to write for a value of `type` with `node`; values
  /// outside the graph (scalars, dynamic shapes) are replicated.
  ShardingAttr shardingAttr(NodeId node, Type type);

  ModuleOp module;
  std::vector<MeshOp> meshOps;
  PropagationGraph graph;
  SymbolTableCollection symbols;
  llvm::DenseMap<Value, NodeId> nodes;
  llvm::DenseMap<OpOperand *, NodeId> useNodes;
  RemadePerDeviceCache remade;
  llvm::DenseMap<Operation *, SmallVector<NodeId>> resultSlots;
  /// The op each edge stands for, for diagnostics.
  std::vector<Operation *> edgeOps;
  Operation *currentOp = nullptr;
  std::vector<std::string> originNames;
  /// Written shardings by PropagationGraph::shardingKey.
  absl::flat_hash_map<std::vector<int64_t>, ShardingAttr> shardingAttrs;
  std::vector<int64_t> keyScratch;
  /// User shardings converted, once per attribute.
  llvm::DenseMap<ShardingAttr, TensorSharding> userShardings;
  /// Written attributes: a long program writes a few distinct ones.
  llvm::DenseMap<ShardingAttr, ShardingPerValueAttr> perValueAttrs;
  llvm::DenseMap<std::pair<DictionaryAttr, Attribute>, DictionaryAttr>
      withShardings;
  unsigned defaultMesh = 0;
  bool defaultMeshChosen = false;
};
} // namespace

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

NodeId ModulePropagation::useNode(OpOperand &use) {
  Value value = use.get();
  // A sharding the user gave the value binds all its uses.
  if (value.hasOneUse() || !remade.isFreeInAnyLayout(value) ||
      value.getDefiningOp()->hasAttr(SpmdDialect::kShardingAttrName))
    return nodeFor(value);
  auto [it, inserted] = useNodes.try_emplace(&use, 0);
  if (inserted)
    it->second =
        graph.addNode(llvm::cast<RankedTensorType>(value.getType()).getShape());
  return it->second;
}

NodeId ModulePropagation::shownNode(Value value) {
  NodeId own = nodeFor(value);
  auto sharding = [&](NodeId node) {
    return graph.sharding(node, defaultMesh);
  };
  if (own == PropagationGraph::kScalar || !graph.isFullyReplicated(own))
    return own;
  std::optional<NodeId> agreed;
  for (OpOperand &use : value.getUses()) {
    auto it = useNodes.find(&use);
    if (it == useNodes.end() || graph.isFullyReplicated(it->second))
      continue;
    if (agreed && !(sharding(*agreed) == sharding(it->second)))
      return own;
    agreed = it->second;
  }
  return agreed.value_or(own);
}

void ModulePropagation::tieNodes(ArrayRef<NodeId> ids,
                                 ArrayRef<int64_t> shape) {
  SmallVector<NodeId> distinct;
  for (NodeId id : ids)
    if (id != PropagationGraph::kScalar && !llvm::is_contained(distinct, id))
      distinct.push_back(id);
  if (distinct.size() >= 2)
    addEdge(ShardingRule::identity(shape, distinct.size()), distinct,
            distinct.size());
}

void ModulePropagation::addEdge(ShardingRule &&rule, SmallVector<NodeId> ids,
                                unsigned numOperands) {
  graph.addEdge(std::move(rule), std::move(ids), numOperands);
  edgeOps.push_back(currentOp);
}

LogicalResult ModulePropagation::run(PropagationStrategy strategy) {
  graph.setEdgeNamer([&](unsigned edge) {
    Operation *op = edgeOps[edge];
    return "'" + op->getName().getStringRef().str() + "' at " +
           placeOf(op->getLoc());
  });
  graph.propagate(strategy);
  // One error per contradiction: skip conflicts touching a reported one.
  SmallVector<unsigned> conflicts(graph.meshConflicts());
  llvm::sort(conflicts);
  llvm::DenseSet<NodeId> reported;
  for (unsigned edge : conflicts) {
    ArrayRef<NodeId> ids = graph.edgeNodes(edge);
    if (llvm::any_of(ids, [&](NodeId id) { return reported.contains(id); }))
      continue;
    reported.insert(ids.begin(), ids.end());
    SmallVector<std::string> names;
    for (NodeId id : ids)
      if (id != PropagationGraph::kScalar && graph.hasSharding(id)) {
        std::string name = "@" + graph.sharding(id, defaultMesh).meshName;
        if (!llvm::is_contained(names, name))
          names.push_back(name);
      }
    edgeOps[edge]->emitError()
        << "'" << edgeOps[edge]->getName()
        << "' relates tensors sharded on different meshes ("
        << llvm::join(names, ", ") << "); reshard them onto one mesh first";
  }
  return success(graph.meshConflicts().empty());
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
                                         Location loc, std::string origin) {
  if (node == PropagationGraph::kScalar) {
    // Values outside the graph (dynamic shapes) stay whole: a split written
    // on one cannot be honoured.
    TensorSharding written = sharding.toTensorSharding();
    if (written.partial.empty() &&
        llvm::all_of(written.dims,
                     [](const DimSharding &d) { return d.axes.empty(); }))
      return success();
    return emitError(loc) << "cannot split a tensor of dynamic shape ("
                          << origin
                          << "): only statically shaped tensors are sharded";
  }
  if (!defaultMeshChosen && meshIndex(sharding.getMesh()) >= 0) {
    defaultMesh = meshIndex(sharding.getMesh());
    defaultMeshChosen = true;
  }
  originNames.push_back(std::move(origin));
  auto [known, inserted] = userShardings.try_emplace(sharding);
  if (inserted)
    known->second = sharding.toTensorSharding();
  if (llvm::Error err =
          graph.setUserSharding(node, known->second, originNames.size() - 1))
    return emitError(loc) << llvm::toString(std::move(err));
  return success();
}

LogicalResult ModulePropagation::build() {
  // About one node per value and one edge per op.
  unsigned numOps = 0, numValues = 0;
  module.walk([&](Operation *op) {
    ++numOps;
    numValues += op->getNumResults();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        numValues += block.getNumArguments();
  });
  graph.reserve(numValues, numOps);
  nodes.reserve(numValues);
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
        if (failed(
                setUser(node, sharding, arg.getLoc(),
                        name + " arg " + std::to_string(arg.getArgNumber()))))
          return failure();
    }
    for (auto [i, slot] : llvm::enumerate(resultSlots[function]))
      if (auto sharding = function.getResultAttrOfType<ShardingAttr>(
              i, SpmdDialect::kShardingAttrName))
        if (failed(setUser(slot, sharding, function.getLoc(),
                           name + " result " + std::to_string(i))))
          return failure();
    WalkResult walk = function.walk<WalkOrder::PreOrder>([&](Operation *op) {
      currentOp = op;
      return failed(visit(op)) ? WalkResult::interrupt()
                               : WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  return success();
}

LogicalResult ModulePropagation::visit(Operation *op) {
  // Control flow ties the values on both sides of each edge.
  if (op->hasTrait<OpTrait::ReturnLike>() &&
      llvm::isa<FunctionOpInterface>(op->getParentOp())) {
    auto &slots = resultSlots[op->getParentOp()];
    for (auto [value, slot] : llvm::zip(op->getOperands(), slots))
      if (auto shape = rules::staticShape(value))
        tieNodes({nodeFor(value), slot}, *shape);
    return success();
  }
  if (auto call = llvm::dyn_cast<CallOpInterface>(op)) {
    auto callee = llvm::dyn_cast_or_null<FunctionOpInterface>(
        call.resolveCallableInTable(&symbols));
    if (callee && !callee.isExternal()) {
      for (auto [operand, arg] :
           llvm::zip(call.getArgOperands(), callee.getArguments()))
        tie({operand, arg});
      for (auto [result, slot] :
           llvm::zip(call->getResults(), resultSlots[callee]))
        if (auto shape = rules::staticShape(result))
          tieNodes({nodeFor(result), slot}, *shape);
      return success();
    }
  } else if (auto branch = llvm::dyn_cast<RegionBranchOpInterface>(op)) {
    for (const CarriedValue &carried : regionFlowClasses(branch)) {
      SmallVector<Value> values(carried.inputs);
      for (OpOperand *operand : carried.operands)
        values.push_back(operand->get());
      tie(values);
    }
    return success();
  } else if (llvm::isa<RegionBranchTerminatorOpInterface>(op)) {
    return success(); // Tied by the parent.
  } else if (auto constraint = llvm::dyn_cast<ShardingConstraintOp>(op)) {
    tie({constraint.getInput(), constraint.getResult()});
    return setUser(nodeFor(constraint.getResult()), constraint.getSharding(),
                   op->getLoc(), "constraint at " + placeOf(op->getLoc()));
  } else if (auto manual = llvm::dyn_cast<ManualComputationOp>(op)) {
    return visitManualComputation(manual);
  }
  if (llvm::isa_and_nonnull<SpmdDialect>(op->getDialect()) &&
      !llvm::isa<CollectiveOpInterface>(op))
    return success();
  if (!touchesTensors(op))
    return success();

  // Shardings already on the op's results are kept as written.
  if (auto written = op->getAttrOfType<ShardingPerValueAttr>(
          SpmdDialect::kShardingAttrName))
    for (auto [result, sharding] :
         llvm::zip(op->getResults(), written.getShardings()))
      if (failed(setUser(nodeFor(result), sharding, op->getLoc(),
                         op->getName().getStringRef().str() + " at " +
                             placeOf(op->getLoc()))))
        return failure();

  if (std::optional<OpShardingRule> rule = getShardingRule(op)) {
    if (failed(verifyShardingRule(op, *rule)))
      return failure();
    SmallVector<NodeId> ids;
    for (OpOperand &operand : op->getOpOperands())
      ids.push_back(nodeFor(operand.get()) == PropagationGraph::kScalar
                        ? PropagationGraph::kScalar
                        : useNode(operand));
    for (Value result : op->getResults())
      ids.push_back(nodeFor(result));
    addEdge(std::move(*rule), std::move(ids), op->getNumOperands());
    return success();
  }
  op->emitRemark() << "no sharding rule for '" << op->getName()
                   << "': its operands and results are replicated";
  for (Value result : op->getResults())
    if (NodeId node = nodeFor(result); node != PropagationGraph::kScalar)
      graph.setReplicated(node, defaultMesh);
  return success();
}

/// The boundary of a manual region is written by the user: each operand is
/// asked for in its in_sharding (as a sharding_constraint asks), each result
/// has its out_sharding. Inside, the body's arguments have the free part of
/// theirs and its yields are asked for in the free part of theirs: the body
/// is global over the free axes, and the manual ones never reach it.
LogicalResult
ModulePropagation::visitManualComputation(ManualComputationOp op) {
  std::string origin = "manual_computation at " + placeOf(op->getLoc());
  auto askFor = [&](Value value, ShardingAttr sharding) {
    auto shape = rules::staticShape(value);
    if (!shape)
      return success();
    NodeId boundary = graph.addNode(*shape);
    tieNodes({nodeFor(value), boundary}, *shape);
    return setUser(boundary, sharding, op->getLoc(), origin);
  };
  auto freePart = [&](Attribute sharding) {
    return ShardingAttr::get(op.getContext(),
                             op.freePart(llvm::cast<ShardingAttr>(sharding)));
  };
  Block &body = op.getBody().front();
  for (auto [operand, arg, sharding] : llvm::zip_equal(
           op.getTensors(), body.getArguments(), op.getInShardings()))
    if (failed(askFor(operand, llvm::cast<ShardingAttr>(sharding))) ||
        failed(setUser(nodeFor(arg), freePart(sharding), op->getLoc(), origin)))
      return failure();
  for (auto [result, yielded, sharding] :
       llvm::zip_equal(op.getResults(), body.getTerminator()->getOperands(),
                       op.getOutShardings()))
    if (failed(setUser(nodeFor(result), llvm::cast<ShardingAttr>(sharding),
                       op->getLoc(), origin)) ||
        failed(askFor(yielded, freePart(sharding))))
      return failure();
  return success();
}

ShardingAttr ModulePropagation::shardingAttr(NodeId node, Type type) {
  MLIRContext *context = module.getContext();
  if (node != PropagationGraph::kScalar) {
    graph.shardingKey(node, defaultMesh, keyScratch);
    auto [it, inserted] = shardingAttrs.try_emplace(keyScratch);
    if (inserted)
      it->second =
          ShardingAttr::get(context, graph.sharding(node, defaultMesh));
    return it->second;
  }
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  return ShardingAttr::get(context, TensorSharding::replicatedOf(
                                        meshOps[defaultMesh].getSymName().str(),
                                        tensor ? tensor.getRank() : 0));
}

void ModulePropagation::writeShardings(Operation *op, StringAttr name,
                                       ArrayRef<ShardingAttr> shardings) {
  ShardingPerValueAttr perValue;
  if (shardings.size() == 1) {
    ShardingPerValueAttr &known = perValueAttrs[shardings.front()];
    if (!known)
      known = ShardingPerValueAttr::get(module.getContext(), shardings);
    perValue = known;
  } else {
    perValue = ShardingPerValueAttr::get(module.getContext(), shardings);
  }
  // The name is never an inherent attribute: setting it only replaces the
  // op's dictionary, which is the same for the same dictionary and value.
  DictionaryAttr &attrs =
      withShardings[{op->getRawDictionaryAttrs(), perValue}];
  if (!attrs) {
    NamedAttrList list(op->getRawDictionaryAttrs());
    list.set(name, perValue);
    attrs = list.getDictionary(module.getContext());
  }
  op->setDiscardableAttrs(attrs);
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
  // Named once: a name given as a string is uniqued again at every op.
  StringAttr shardingName =
      builder.getStringAttr(SpmdDialect::kShardingAttrName);
  StringAttr originsName = builder.getStringAttr(SpmdDialect::kOriginsAttrName);
  unsigned moduleMesh = defaultMesh;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    // Values nothing reached are replicated on their function's mesh.
    defaultMesh = moduleMesh;
    if (FlatSymbolRefAttr mesh = firstShardingMesh(function))
      if (int index = meshIndex(mesh); index >= 0)
        defaultMesh = index;
    updateArgAttrs(function, [&](unsigned i, NamedAttrList &attrs) {
      BlockArgument arg = function.getArgument(i);
      if (!llvm::isa<RankedTensorType>(arg.getType()))
        return;
      NodeId node = nodeFor(arg);
      attrs.set(shardingName, shardingAttr(node, arg.getType()));
      if (debugOrigins)
        attrs.set(originsName, originsAttr(node));
    });
    const auto &slots = resultSlots[function];
    updateResultAttrs(function, [&](unsigned i, NamedAttrList &attrs) {
      Type type = function.getResultTypes()[i];
      if (i >= slots.size() || !llvm::isa<RankedTensorType>(type))
        return;
      attrs.set(shardingName, shardingAttr(slots[i], type));
      if (debugOrigins)
        attrs.set(originsName, originsAttr(slots[i]));
    });
    function.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if ((llvm::isa_and_nonnull<SpmdDialect>(op->getDialect()) &&
           !llvm::isa<CollectiveOpInterface>(op)) ||
          llvm::none_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>))
        return WalkResult::advance();
      SmallVector<ShardingAttr> shardings;
      SmallVector<Attribute> origins;
      for (Value result : op->getResults()) {
        NodeId node = shownNode(result);
        shardings.push_back(shardingAttr(node, result.getType()));
        if (debugOrigins)
          origins.push_back(originsAttr(node));
      }
      writeShardings(op, shardingName, shardings);
      if (debugOrigins)
        op->setAttr(originsName, builder.getArrayAttr(origins));
      return WalkResult::advance();
    });
  }
}

LogicalResult
mlir::spmd::propagateShardings(ModuleOp module,
                               const PropagationOptions &options) {
  std::vector<MeshOp> meshes(module.getOps<MeshOp>().begin(),
                             module.getOps<MeshOp>().end());
  if (meshes.empty())
    return success(); // Nothing names a mesh: nothing to propagate.
  ModulePropagation propagation(module, std::move(meshes));
  if (failed(propagation.build()) || failed(propagation.run(options.strategy)))
    return failure();
  propagation.write(options.debugOrigins);
  return success();
}
