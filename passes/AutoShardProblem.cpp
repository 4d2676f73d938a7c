//===- AutoShardProblem.cpp - A function as an auto-sharding problem ------===//

#include "passes/AutoShardProblem.h"

#include "ir/LocalIR.h"
#include "ir/Namespaces.h"
#include "ir/RemadePerDevice.h"
#include "ir/SpmdOps.h"
#include "ir/WorkingBytes.h"
#include "partitioner/CapturedReads.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/Debug.h"

#include <cmath>
#include <map>
#include <set>

#define DEBUG_TYPE "spmd-auto-shard"

/// The most strategies a node keeps.
static constexpr size_t kMaxStrategies = 64;

using namespace mlir;
using namespace mlir::spmd;

namespace mlir::spmd {

/// Builds the problem in two steps: one node per free argument and per op
/// that is no follower, then (on large graphs) nodes of one structure
/// merged into one, with the live sets computed over the merged values.
class AutoShardProblemBuilder {
public:
  AutoShardProblemBuilder(AutoShardProblem &result, func::FuncOp function,
                          const MeshInfo &mesh, ArrayRef<bool> dcnAxes,
                          const AutoShardSettings &settings,
                          std::chrono::steady_clock::time_point deadline)
      : result(result), function(function), mesh(mesh.mesh),
        meshSymbol(mesh.symbol), settings(settings), deadline(deadline),
        costs(AxisCosts::uniform(mesh.mesh, 1 / settings.bytesPerSecond,
                                 dcnAxes, settings.dcnCost)) {
    costs.secondsPerFlop = 1 / settings.flopsPerSecond;
  }

  LogicalResult build();

private:
  struct Node {
    std::vector<double> cost, compute;
    /// The op (or the argument's first user) the node stands for, and the
    /// ops that follow it.
    Operation *anchor = nullptr;
    int argument = -1, result = -1;
    SmallVector<Operation *> followers;
    unsigned numValues = 0;
  };
  /// A free value: its node's strategies give its layouts.
  struct ModelValue {
    Value value;
    unsigned node, local;
    std::vector<double> bytes;
  };

  /// Bytes held over program points [from, to] that `node`'s choice
  /// decides, or (`producer` >= 0) the pair of `producer`'s and `node`'s
  /// choices: a reshard's copy, a kernel's working buffer.
  struct Held {
    unsigned from, to, node;
    int producer = -1;
    std::vector<double> bytes;
  };

  unsigned addNode(size_t strategies, Operation *anchor, int argument = -1);
  void addFreeValue(Value value, unsigned node,
                    std::vector<ShardState> layouts);
  LogicalResult pin(Value value, ShardingAttr sharding, Operation *where);
  /// Charges node `node`'s strategy `s` for reading `operand` in `layout`.
  void chargeRead(Value operand, unsigned node, unsigned s,
                  const ShardState &layout);
  /// The same, where the layout read depends on the one the operand is in
  /// (a table a linalg body reads).
  void chargeRead(Value operand, unsigned node, unsigned s,
                  llvm::function_ref<ShardState(const ShardState &)> read);
  /// Where the copy `node` reads of `operand` is held: its bytes per
  /// strategy (or pair of strategies with the operand's producer).
  Held &heldCopy(Value operand, unsigned node, int producer, size_t size);
  double copyBytes(Value value, const ShardState &from, const ShardState &to);
  /// Holds what an op the model does not choose for (a loop, a call, an op
  /// without a factor rule) may hold, whatever layouts propagation gives
  /// it: see chargeUnknown.
  void chargeUnknown(Operation *op);
  /// The cost of bringing `input` to `target` where an op asks for it.
  void chargeBringing(Value input, const ShardState &target);
  LogicalResult addManualComputation(ManualComputationOp op);
  /// Holds the buffers alike remade values share between their reads.
  void holdRemadeBuffers();
  double heldInside(Region &region, unsigned depth);
  /// Where a copy of `operand` read at the current op starts being held.
  unsigned heldFrom(Value operand);
  /// Holds the working buffers of `op`'s kernel where it runs.
  void chargeWorkingBytes(Operation *op, unsigned node,
                          ArrayRef<OpStrategy> strategies);
  /// Charges the tables `op`'s body reads, under its strategies.
  void chargeCapturedReads(linalg::LinalgOp op, unsigned node,
                           ArrayRef<OpStrategy> strategies,
                           ArrayRef<int64_t> loopSizes);
  /// Charges producing `value` in `layouts` (per strategy of `node`) where
  /// it must end up in `target`.
  void chargeWrite(Value value, unsigned node, ArrayRef<ShardState> layouts,
                   const ShardState &target);
  /// Bytes a reshard of `value` into a pinned layout holds besides its
  /// result.
  double reshardHeld(Value value, const ShardState &from, const ShardState &to);
  double reshard(Value value, const ShardState &from, const ShardState &to);
  /// What makes `remade`, whatever its type: remade values made alike are
  /// merged (CSE) where their local types agree, whatever their layouts.
  llvm::hash_code recipe(Value remade);
  std::vector<ShardState>
  everyLayout(ArrayRef<int64_t> shape,
              llvm::function_ref<bool(const ShardState &)> keep = nullptr);
  LogicalResult addArgument(BlockArgument argument);
  LogicalResult addOp(Operation *op);
  bool addFollower(Operation *op, const OpShardingRule &rule);
  void addReturn(Operation *op);
  void share();
  void addLiveSets();
  /// How the strategies of a node with `rule` are searched: within
  /// kMaxStrategies, or the replicated one alone past the deadline
  /// (counted in the result).
  StrategySearch searchFor(const ShardingRule &rule);
  llvm::hash_code opKey(Operation *op, int depth);
  llvm::hash_code nodeKey(const Node &node);

  AutoShardProblem &result;
  func::FuncOp function;
  const DeviceMesh &mesh;
  FlatSymbolRefAttr meshSymbol;
  const AutoShardSettings &settings;
  std::chrono::steady_clock::time_point deadline;
  AxisCosts costs;
  ReshardPlanCache plans;

  std::vector<Node> nodes;
  std::vector<ModelValue> values;
  llvm::MapVector<std::pair<unsigned, unsigned>, std::vector<double>> edges;
  /// Pinned values and the bytes they hold per device.
  std::vector<std::pair<Value, double>> pinnedBytes;
  llvm::DenseMap<Operation *, unsigned> position;
  llvm::DenseMap<std::pair<Operation *, int>, llvm::hash_code> keys;
  /// Copies and buffers, and the one per (operand, reader node).
  std::vector<Held> held;
  llvm::DenseMap<std::pair<Value, unsigned>, unsigned> heldOf;
  /// Bytes no choice changes held over [from, to]: a written layout
  /// resharded into another written one.
  std::vector<std::tuple<unsigned, unsigned, double>> fixedHeld;
  /// A read of a remade value: alike remade values of one local type (a
  /// recipe and a local shape) share one buffer, held from the first read
  /// that takes it to the last (holdRemadeBuffers).
  struct RemadeRead {
    std::pair<size_t, std::vector<int64_t>> type;
    unsigned at, node, strategy, strategies;
    double bytes;
  };
  std::vector<RemadeRead> remadeReads;
  /// The op being added (its position is where its reads happen).
  Operation *current = nullptr;
  /// After sharing: each node's class, and the edge between two classes.
  std::vector<unsigned> classOf;
  std::map<std::pair<unsigned, unsigned>, unsigned> edgeOf;
};

} // namespace mlir::spmd

static std::vector<int64_t> shapeOf(Value value) {
  if (auto type = dyn_cast<RankedTensorType>(value.getType()))
    return std::vector<int64_t>(type.getShape().begin(), type.getShape().end());
  return {};
}

static double bytesOf(const DeviceMesh &mesh, Value value,
                      const ShardState &state) {
  std::vector<int64_t> local = localShape(mesh, shapeOf(value), state);
  return double(product(local)) *
         double(elementBytes(getElementTypeOrSelf(value.getType())));
}

/// Scalar ops per point of the iteration space: a linalg op's body; other
/// ops (reshapes, slices, pads) only move data.
static double flopsPerPoint(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return double(linalgOp.getBlock()->getOperations().size() - 1);
  return 0;
}

static bool isStaticTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape();
}

/// Bytes of `value` whole (replicated): what any layout holds at most.
static double fullBytes(Value value) {
  if (!isStaticTensor(value))
    return 0;
  return double(product(shapeOf(value))) *
         double(elementBytes(getElementTypeOrSelf(value.getType())));
}

unsigned AutoShardProblemBuilder::addNode(size_t strategies, Operation *anchor,
                                          int argument) {
  Node node;
  node.cost.assign(strategies, 0);
  node.compute.assign(strategies, 0);
  node.anchor = anchor;
  node.argument = argument;
  nodes.push_back(std::move(node));
  return nodes.size() - 1;
}

void AutoShardProblemBuilder::addFreeValue(Value value, unsigned node,
                                           std::vector<ShardState> layouts) {
  ModelValue v{value, node, nodes[node].numValues++, {}};
  for (const ShardState &layout : layouts)
    v.bytes.push_back(bytesOf(mesh, value, layout));
  values.push_back(std::move(v));
  result.free[value] = {node, std::move(layouts)};
}

LogicalResult AutoShardProblemBuilder::pin(Value value, ShardingAttr sharding,
                                           Operation *where) {
  llvm::Expected<ShardState> state = toState(mesh, sharding.toTensorSharding());
  if (!state)
    return where->emitError("cannot auto-shard around this sharding: ")
           << llvm::toString(state.takeError());
  pinnedBytes.push_back({value, bytesOf(mesh, value, *state)});
  result.pinned[value] = std::move(*state);
  return success();
}

double AutoShardProblemBuilder::reshard(Value value, const ShardState &from,
                                        const ShardState &to) {
  // Past the deadline, reshards on meshes of many axes are estimated
  // without the search over devices that dominates building there.
  bool quick = mesh.rank() > kPlannedAxes && !(from == to) &&
               std::chrono::steady_clock::now() > deadline;
  result.reshardsEstimated += quick;
  return reshardSeconds(plans, mesh, shapeOf(value),
                        elementBytes(getElementTypeOrSelf(value.getType())),
                        from, to, costs, quick);
}

void AutoShardProblemBuilder::chargeRead(Value operand, unsigned node,
                                         unsigned s, const ShardState &layout) {
  chargeRead(operand, node, s, [&](const ShardState &) { return layout; });
}

/// Bytes a reshard of `value` from `from` to `to` holds besides the value:
/// each step's result, and the pieces a reduce_scatter or all_to_all keeps
/// of every member's buffer (as large as its own input), as the planner's
/// plan makes them. Without a plan (meshes of many axes), at most the value
/// whole besides both ends.
double AutoShardProblemBuilder::copyBytes(Value value, const ShardState &from,
                                          const ShardState &to) {
  double element = double(elementBytes(getElementTypeOrSelf(value.getType())));
  const ReshardPlan *plan =
      mesh.rank() > kPlannedAxes
          ? nullptr
          : plans.plan(mesh, shapeOf(value), int64_t(element), from, to);
  if (!plan || plan->fallback)
    return fullBytes(value) + bytesOf(mesh, value, from) +
           bytesOf(mesh, value, to);
  double bytes = 0, input = bytesOf(mesh, value, from);
  for (const ReshardStep &step : plan->steps) {
    double output = double(product(step.localShape)) * element;
    bytes += output;
    if (step.kind == CollectiveKind::ReduceScatter ||
        step.kind == CollectiveKind::AllToAll)
      bytes += input;
    input = output;
  }
  return std::max(bytes, bytesOf(mesh, value, to));
}

unsigned AutoShardProblemBuilder::heldFrom(Value operand) {
  // A copy made for one reader may be kept for the next (and a value read
  // in several layouts may be resharded where it is made): one read of
  // many is held from the value's start.
  Block &body = function.getBody().front();
  llvm::SmallPtrSet<Operation *, 4> readers;
  for (Operation *user : operand.getUsers())
    if (Operation *top = body.findAncestorOpInBlock(*user))
      readers.insert(top);
  unsigned at = current ? position[current] : 0;
  if (readers.size() <= 1)
    return at;
  Operation *def = operand.getDefiningOp();
  return def && position.count(def) ? position[def] : 0;
}

AutoShardProblemBuilder::Held &AutoShardProblemBuilder::heldCopy(Value operand,
                                                                 unsigned node,
                                                                 int producer,
                                                                 size_t size) {
  auto [it, inserted] = heldOf.try_emplace({operand, node}, held.size());
  if (inserted) {
    unsigned at = current ? position[current] : 0;
    unsigned from = heldFrom(operand);
    held.push_back({from, at, node, producer, std::vector<double>(size, 0)});
  }
  return held[it->second];
}

void AutoShardProblemBuilder::chargeRead(
    Value operand, unsigned node, unsigned s,
    llvm::function_ref<ShardState(const ShardState &)> read) {
  size_t strategies = nodes[node].cost.size();
  if (auto it = result.free.find(operand); it != result.free.end()) {
    const auto &[producer, layouts] = it->second;
    if (producer == node) {
      ShardState layout = read(layouts[s]);
      nodes[node].cost[s] += reshard(operand, layouts[s], layout);
      if (!(layout == layouts[s]))
        heldCopy(operand, node, -1, strategies).bytes[s] +=
            copyBytes(operand, layouts[s], layout);
      return;
    }
    std::vector<double> &cost = edges[{producer, node}];
    cost.resize(layouts.size() * strategies, 0);
    Held *copy = nullptr;
    for (size_t i = 0; i < layouts.size(); ++i) {
      ShardState layout = read(layouts[i]);
      cost[i * strategies + s] += reshard(operand, layouts[i], layout);
      if (layout == layouts[i])
        continue;
      if (!copy)
        copy = &heldCopy(operand, node, int(producer),
                         layouts.size() * strategies);
      copy->bytes[i * strategies + s] += copyBytes(operand, layouts[i], layout);
    }
    return;
  }
  if (auto it = result.pinned.find(operand); it != result.pinned.end()) {
    ShardState layout = read(it->second);
    nodes[node].cost[s] += reshard(operand, it->second, layout);
    if (!(layout == it->second))
      heldCopy(operand, node, -1, strategies).bytes[s] +=
          copyBytes(operand, it->second, layout);
    return;
  }
  // A value an unmodelled op makes is in a layout propagation gives it:
  // its copy is at most whole, beside pieces at most whole.
  if (isStaticTensor(operand) && !isRemadePerDevice(operand)) {
    ShardState whole;
    whole.dims.resize(shapeOf(operand).size());
    heldCopy(operand, node, -1, strategies).bytes[s] +=
        bytesOf(mesh, operand, read(whole)) + fullBytes(operand);
    return;
  }
  // Remade values are made in the layout read, for the reader.
  if (isRemadePerDevice(operand)) {
    ShardState whole;
    whole.dims.resize(shapeOf(operand).size());
    ShardState layout = read(whole);
    double bytes = bytesOf(mesh, operand, layout);
    heldCopy(operand, node, -1, strategies).bytes[s] += bytes;
    remadeReads.push_back(
        {{size_t(recipe(operand)), localShape(mesh, shapeOf(operand), layout)},
         position[current],
         node,
         s,
         unsigned(strategies),
         bytes});
  }
}

/// The tensors made inside `region` (and in the functions it calls, to
/// `depth` calls deep), each whole, with a copy and a collective's pieces
/// per use: what running it may hold at most in any layout.
double AutoShardProblemBuilder::heldInside(Region &region, unsigned depth) {
  double bytes = 0;
  auto module = function->getParentOfType<ModuleOp>();
  region.walk([&](Operation *op) {
    for (Value v : op->getResults())
      bytes += fullBytes(v) * (1 + 2 * double(llvm::range_size(v.getUses())));
    for (Region &inner : op->getRegions())
      for (Block &block : inner)
        for (BlockArgument arg : block.getArguments())
          bytes += fullBytes(arg) *
                   (1 + 2 * double(llvm::range_size(arg.getUses())));
    auto call = dyn_cast<func::CallOp>(op);
    if (!call || depth == 0 || !module)
      return;
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
    if (callee && !callee.isExternal())
      bytes += heldInside(callee.getBody(), depth - 1);
  });
  return bytes;
}

void AutoShardProblemBuilder::chargeUnknown(Operation *op) {
  unsigned at = position[op];
  // What it reads: each use a copy at most whole, beside pieces of the
  // value's own layout (at most whole too).
  llvm::SetVector<Value> read(op->operand_begin(), op->operand_end());
  getUsedValuesDefinedAbove(op->getRegions(), read);
  double bytes = 0;
  for (Value v : read) {
    if (!isStaticTensor(v))
      continue;
    double uses = double(llvm::count_if(v.getUsers(), [&](Operation *user) {
      return user == op || op->isProperAncestor(user);
    }));
    fixedHeld.push_back({heldFrom(v), at, 2 * fullBytes(v) * uses});
  }
  // What runs inside it, or inside the function it calls.
  constexpr unsigned kCallDepth = 8;
  for (Region &region : op->getRegions())
    bytes += heldInside(region, kCallDepth);
  if (auto call = dyn_cast<func::CallOp>(op))
    if (auto module = function->getParentOfType<ModuleOp>())
      if (auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
          callee && !callee.isExternal())
        bytes += heldInside(callee.getBody(), kCallDepth);
  if (bytes > 0)
    fixedHeld.push_back({at, at, bytes});
  // Its results, whole, to their last reader.
  Block &body = function.getBody().front();
  for (Value v : op->getResults()) {
    unsigned last = at;
    for (Operation *user : v.getUsers())
      if (Operation *top = body.findAncestorOpInBlock(*user))
        last = std::max(last, isa<func::ReturnOp>(top)
                                  ? unsigned(body.getOperations().size() + 1)
                                  : position[top]);
    if (isStaticTensor(v))
      fixedHeld.push_back({at, last, fullBytes(v)});
  }
}

void AutoShardProblemBuilder::chargeWorkingBytes(
    Operation *op, unsigned node, ArrayRef<OpStrategy> strategies) {
  std::vector<double> bytes;
  for (const OpStrategy &strategy : strategies) {
    std::vector<std::vector<int64_t>> local;
    for (auto [t, layout] : llvm::enumerate(strategy.tensors))
      local.push_back(
          localShape(mesh,
                     shapeOf(t < op->getNumOperands()
                                 ? op->getOperand(t)
                                 : op->getResult(t - op->getNumOperands())),
                     layout));
    SmallVector<ArrayRef<int64_t>> operands(
        local.begin(), local.begin() + op->getNumOperands());
    SmallVector<ArrayRef<int64_t>> results(local.begin() + op->getNumOperands(),
                                           local.end());
    bytes.push_back(double(workingBytes(op, operands, results)));
  }
  if (llvm::any_of(bytes, [](double b) { return b > 0; })) {
    unsigned at = position[op];
    held.push_back({at, at, node, -1, std::move(bytes)});
  }
}

void AutoShardProblemBuilder::chargeCapturedReads(
    linalg::LinalgOp op, unsigned node, ArrayRef<OpStrategy> strategies,
    ArrayRef<int64_t> loopSizes) {
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value table : captured) {
    if (!isStaticTensor(table))
      continue;
    for (auto [s, strategy] : llvm::enumerate(strategies))
      chargeRead(table, node, s,
                 [&, &strategy = strategy](const ShardState &current) {
                   return capturedReadLayout(op, table, current, mesh,
                                             strategy.factorAxes, loopSizes);
                 });
  }
}

/// The result of the reshard is the pinned value, held as such: the steps
/// before it (and a reduce_scatter's pieces) are held here.
void AutoShardProblemBuilder::chargeWrite(Value value, unsigned node,
                                          ArrayRef<ShardState> layouts,
                                          const ShardState &target) {
  for (size_t s = 0; s < layouts.size(); ++s) {
    nodes[node].cost[s] += reshard(value, layouts[s], target);
    if (!(layouts[s] == target))
      heldCopy(value, node, -1, layouts.size()).bytes[s] +=
          reshardHeld(value, layouts[s], target);
  }
}

double AutoShardProblemBuilder::reshardHeld(Value value, const ShardState &from,
                                            const ShardState &to) {
  return std::max(0.0, copyBytes(value, from, to) - bytesOf(mesh, value, to));
}

llvm::hash_code AutoShardProblemBuilder::recipe(Value remade) {
  Operation *def = remade.getDefiningOp();
  llvm::hash_code key =
      llvm::hash_combine(def->getName().getAsOpaquePointer(),
                         def->getRawDictionaryAttrs().getAsOpaquePointer(),
                         def->getPropertiesAsAttribute().getAsOpaquePointer());
  for (Value operand : def->getOperands()) {
    Attribute constant;
    if (isa<TensorType>(operand.getType()))
      key = llvm::hash_combine(key, recipe(operand));
    else if (matchPattern(operand, m_Constant(&constant)))
      key = llvm::hash_combine(key, constant.getAsOpaquePointer());
    else
      key = llvm::hash_combine(key, operand.getAsOpaquePointer());
  }
  return key;
}

StrategySearch AutoShardProblemBuilder::searchFor(const ShardingRule &rule) {
  StrategySearch search;
  search.limit = kMaxStrategies;
  if (std::chrono::steady_clock::now() > deadline) {
    search.limit = 1;
    ++result.nodesCutByTimeLimit;
  } else if (std::pow(double(rule.numFactors() + 1), double(mesh.rank())) >
             kEnumeratedChoices) {
    ++result.nodesSearched;
  }
  return search;
}

/// Every way to split a tensor of `shape` (each axis to one dimension it
/// divides, in mesh order) that `keep` accepts, the replicated layout
/// first: the strategies of an op that only holds the value.
std::vector<ShardState> AutoShardProblemBuilder::everyLayout(
    ArrayRef<int64_t> shape,
    llvm::function_ref<bool(const ShardState &)> keep) {
  ShardingRule rule = ShardingRule::identity(shape, 1);
  std::vector<std::vector<int64_t>> shapes{
      std::vector<int64_t>(shape.begin(), shape.end())};
  std::vector<ShardState> layouts;
  for (OpStrategy &s :
       enumerateStrategies(mesh, rule, shapes, 1, 1, 0, costs, searchFor(rule)))
    if (!keep || keep(s.tensors[0]))
      layouts.push_back(std::move(s.tensors[0]));
  // As for ops: the first layout and the smallest others.
  if (layouts.size() > kMaxStrategies) {
    auto bytes = [&](const ShardState &layout) {
      return product(localShape(mesh, shape, layout));
    };
    std::stable_sort(layouts.begin() + 1, layouts.end(),
                     [&](const ShardState &a, const ShardState &b) {
                       return bytes(a) < bytes(b);
                     });
    layouts.resize(kMaxStrategies);
  }
  return layouts;
}

LogicalResult AutoShardProblemBuilder::addArgument(BlockArgument argument) {
  if (!isStaticTensor(argument))
    return success();
  auto written = function.getArgAttrOfType<ShardingAttr>(
      argument.getArgNumber(), SpmdDialect::kShardingAttrName);
  std::optional<TensorSharding> user;
  if (written) {
    user = written.toTensorSharding();
    bool open =
        llvm::any_of(user->dims, [](const DimSharding &d) { return d.open; });
    // A value on another mesh is left to propagation.
    if (written.getMesh() != meshSymbol)
      return success();
    // What is replicated or pending stays so: only open dimensions of a
    // plain split are filled in.
    if (!open || !user->replicated.empty() || user->isPartial())
      return pin(argument, written, function);
  }
  std::optional<ShardState> writtenState;
  if (user) {
    llvm::Expected<ShardState> state = toState(mesh, *user);
    if (!state)
      return function.emitError("cannot auto-shard argument #")
             << argument.getArgNumber() << ": "
             << llvm::toString(state.takeError());
    writtenState = std::move(*state);
  }
  // Open dimensions written with axes keep them first; closed ones keep
  // exactly what was written.
  std::vector<ShardState> layouts =
      everyLayout(shapeOf(argument), [&](const ShardState &layout) {
        if (!writtenState)
          return true;
        for (auto [d, dim] : llvm::enumerate(user->dims)) {
          const auto &want = writtenState->dims[d];
          const auto &have = layout.dims[d];
          if (dim.open ? have.size() < want.size() ||
                             llvm::ArrayRef(have).take_front(want.size()) !=
                                 llvm::ArrayRef(want)
                       : have != want)
            return false;
        }
        return true;
      });
  if (layouts.empty())
    // The written axes are in an order no enumerated layout has.
    return pin(argument, written, function);
  Operation *firstUser = nullptr;
  for (Operation *user : argument.getUsers()) {
    Operation *top = function.getBody().front().findAncestorOpInBlock(*user);
    if (top && (!firstUser || position[top] < position[firstUser]))
      firstUser = top;
  }
  unsigned node =
      addNode(layouts.size(), firstUser, int(argument.getArgNumber()));
  addFreeValue(argument, node, std::move(layouts));
  return success();
}

/// An op whose factors are all parallel takes the layout of an operand
/// with as many elements as its result, projected through its rule.
bool AutoShardProblemBuilder::addFollower(Operation *op,
                                          const OpShardingRule &rule) {
  if (op->getNumResults() != 1 || !isStaticTensor(op->getResult(0)) ||
      op->hasAttr(SpmdDialect::kShardingAttrName) ||
      llvm::any_of(rule.factorKinds, [](FactorKind kind) {
        return kind != FactorKind::Parallel;
      }))
    return false;
  Value resultValue = op->getResult(0);
  int64_t elements = product(shapeOf(resultValue));
  int leader = -1;
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (result.free.count(operand) && isStaticTensor(operand) &&
        product(shapeOf(operand)) == elements && !shapeOf(operand).empty()) {
      leader = int(i);
      break;
    }
  if (leader < 0)
    return false;
  unsigned node = result.free[op->getOperand(leader)].node;
  std::vector<ShardState> leaderLayouts =
      result.free[op->getOperand(leader)].layouts;
  unsigned numOperands = op->getNumOperands();
  double points = double(product(rule.factorSizes));
  double flops = flopsPerPoint(op);
  std::vector<ShardState> resultLayouts;
  for (size_t s = 0; s < leaderLayouts.size(); ++s) {
    llvm::SmallVector<AxisList, 4> factorAxes(rule.numFactors());
    for (auto [d, dim] : llvm::enumerate(rule.tensors[leader]))
      projectDim(leaderLayouts[s].dims[d], dim, rule.factorSizes, mesh,
                 factorAxes);
    // A factor whose axes a compound dimension would not give back (a
    // reshape's minor part split before its major one) is not split; the
    // leader is then resharded, and charged for it below.
    for (bool changed = true; changed;) {
      changed = false;
      for (const TensorFactors &tensor : rule.tensors)
        for (const DimFactors &dim : tensor) {
          AxisList axes = composeDim(dim, factorAxes, rule.factorSizes, mesh);
          llvm::SmallVector<AxisList, 4> back(rule.numFactors());
          projectDim(axes, dim, rule.factorSizes, mesh, back);
          for (unsigned f : dim)
            if (back[f] != factorAxes[f]) {
              factorAxes[f].clear();
              changed = true;
            }
        }
    }
    double localPoints = points;
    for (const AxisList &axes : factorAxes)
      for (AxisIndex a : axes)
        localPoints /= double(mesh.axisSize(a));
    nodes[node].compute[s] += flops * localPoints * costs.secondsPerFlop;
    nodes[node].cost[s] += flops * localPoints * costs.secondsPerFlop;
    for (unsigned t = 0; t < rule.numTensors(); ++t) {
      ShardState layout;
      for (const DimFactors &dim : rule.tensors[t]) {
        AxisList axes = composeDim(dim, factorAxes, rule.factorSizes, mesh);
        layout.dims.emplace_back(axes.begin(), axes.end());
      }
      if (t < numOperands)
        chargeRead(op->getOperand(t), node, s, layout);
      else
        resultLayouts.push_back(std::move(layout));
    }
  }
  nodes[node].followers.push_back(op);
  addFreeValue(resultValue, node, std::move(resultLayouts));
  return true;
}

void AutoShardProblemBuilder::chargeBringing(Value input,
                                             const ShardState &target) {
  if (auto it = result.free.find(input); it != result.free.end()) {
    auto [node, layouts] = it->second;
    chargeWrite(input, node, layouts, target);
  } else if (auto it = result.pinned.find(input); it != result.pinned.end()) {
    result.fixedSeconds += reshard(input, it->second, target);
    if (!(it->second == target)) {
      unsigned at = current ? position[current] : 0;
      fixedHeld.push_back({at, at, reshardHeld(input, it->second, target)});
    }
  }
}

/// A manual region's boundary is fixed: operands are brought to the
/// in_shardings (as constraints bring theirs), results are pinned to the
/// out_shardings, and what the body holds is charged as it is written
/// (local already).
LogicalResult
AutoShardProblemBuilder::addManualComputation(ManualComputationOp op) {
  if (op.getMesh() != meshSymbol) {
    chargeUnknown(op);
    return success();
  }
  for (auto [operand, sharding] :
       llvm::zip_equal(op.getTensors(), op.getInShardings())) {
    if (!isStaticTensor(operand))
      continue;
    llvm::Expected<ShardState> state =
        toState(mesh, llvm::cast<ShardingAttr>(sharding).toTensorSharding());
    if (!state)
      return op.emitError("cannot auto-shard around this sharding: ")
             << llvm::toString(state.takeError());
    chargeBringing(operand, *state);
  }
  for (auto [value, sharding] :
       llvm::zip_equal(op.getResults(), op.getOutShardings()))
    if (isStaticTensor(value) &&
        failed(pin(value, llvm::cast<ShardingAttr>(sharding), op)))
      return failure();
  unsigned at = position[op];
  fixedHeld.push_back({at, at, heldInside(op.getBody(), /*depth=*/0)});
  return success();
}

LogicalResult AutoShardProblemBuilder::addOp(Operation *op) {
  if (auto manual = dyn_cast<ManualComputationOp>(op))
    return addManualComputation(manual);
  if (auto constraint = dyn_cast<ShardingConstraintOp>(op)) {
    ShardingAttr sharding = constraint.getSharding();
    if (sharding.getMesh() != meshSymbol ||
        !isStaticTensor(constraint.getResult()))
      return success();
    if (failed(pin(constraint.getResult(), sharding, op)))
      return failure();
    chargeBringing(constraint.getInput(),
                   result.pinned[constraint.getResult()]);
    return success();
  }
  if (op->getNumResults() == 0 || isRemadePerDevice(op->getResult(0)))
    return success();
  // Other constants are the program's data, whole on every device and not
  // a buffer of the run: readers pay for their slices.
  if (op->hasTrait<OpTrait::ConstantLike>()) {
    for (Value value : op->getResults())
      if (isStaticTensor(value))
        result.pinned[value].dims.resize(shapeOf(value).size());
    return success();
  }
  // Results written on another mesh (or not one per result) are the
  // user's to keep and propagation's to check: the op is left out.
  if (auto written = op->getAttrOfType<ShardingPerValueAttr>(
          SpmdDialect::kShardingAttrName))
    if (written.getShardings().size() != op->getNumResults() ||
        llvm::any_of(written.getShardings(), [&](ShardingAttr sharding) {
          return sharding && sharding.getMesh() != meshSymbol;
        })) {
      chargeUnknown(op);
      return success();
    }
  bool structured = isa<linalg::LinalgOp>(op) || op->getNumRegions() == 0;
  std::optional<OpShardingRule> rule =
      structured ? getShardingRule(op) : std::nullopt;
  if (!rule || !llvm::all_of(op->getResults(), isStaticTensor)) {
    chargeUnknown(op);
    return success();
  }
  ++result.opsModelled;
  // A body that reads tables is priced with its strategies (below).
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  bool readsTables = llvm::any_of(captured, isStaticTensor);
  if (!readsTables && addFollower(op, *rule))
    return success();

  unsigned numOperands = op->getNumOperands();
  std::vector<std::vector<int64_t>> shapes;
  for (Value v : op->getOperands())
    shapes.push_back(shapeOf(v));
  for (Value v : op->getResults())
    shapes.push_back(shapeOf(v));
  double flops = flopsPerPoint(op);
  // Results pending over split reductions get the op's one combiner, as
  // the partitioner leaves them; an op without one keeps its reductions
  // whole.
  std::optional<ReductionKind> combiner = getSplitReductionKind(op);
  StrategySearch search = searchFor(*rule);
  search.splitReductions = combiner.has_value();
  std::vector<OpStrategy> strategies = enumerateStrategies(
      mesh, *rule, shapes, numOperands, 1, flops, costs, search);
  llvm::erase_if(strategies, [&](OpStrategy &s) {
    for (unsigned r = 0; r < op->getNumResults(); ++r) {
      ShardState &layout = s.tensors[numOperands + r];
      if (layout.partial.empty())
        continue;
      if (!combiner)
        return true;
      layout.reduction = *combiner;
    }
    return false;
  });
  // Results the user wrote are what the op computes: the partitioner takes
  // no split that would make them in another layout (and reshard them).
  auto written =
      op->getAttrOfType<ShardingPerValueAttr>(SpmdDialect::kShardingAttrName);
  if (written) {
    for (OpResult value : op->getResults()) {
      ShardingAttr sharding = written.getShardings()[value.getResultNumber()];
      if (!sharding)
        continue;
      llvm::Expected<ShardState> target =
          toState(mesh, sharding.toTensorSharding());
      if (!target)
        return op->emitError("cannot auto-shard around this sharding: ")
               << llvm::toString(target.takeError());
      llvm::erase_if(strategies, [&](const OpStrategy &s) {
        return !(s.tensors[numOperands + value.getResultNumber()] == *target);
      });
    }
  }
  if (strategies.empty()) {
    chargeUnknown(op);
    return success();
  }
  // On meshes of many axes the strategies multiply ((factors + 1)^axes),
  // and so do the reshards each edge plans: the replicated one and the
  // least compute are kept.
  if (strategies.size() > kMaxStrategies) {
    std::stable_sort(strategies.begin() + 1, strategies.end(),
                     [](const OpStrategy &a, const OpStrategy &b) {
                       return a.computeSeconds < b.computeSeconds;
                     });
    strategies.resize(kMaxStrategies);
  }
  unsigned node = addNode(strategies.size(), op);
  AutoShardProblem::Splits &split = result.splits[op];
  split.node = node;
  for (const OpStrategy &strategy : strategies)
    split.factorAxes.push_back(strategy.factorAxes);
  for (auto [s, strategy] : llvm::enumerate(strategies)) {
    nodes[node].cost[s] += strategy.computeSeconds;
    nodes[node].compute[s] += strategy.computeSeconds;
    for (unsigned t = 0; t < numOperands; ++t)
      chargeRead(op->getOperand(t), node, s, strategy.tensors[t]);
  }
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op); linalgOp && readsTables)
    chargeCapturedReads(linalgOp, node, strategies, rule->factorSizes);
  chargeWorkingBytes(op, node, strategies);
  for (OpResult value : op->getResults()) {
    std::vector<ShardState> layouts;
    for (OpStrategy &s : strategies)
      layouts.push_back(s.tensors[numOperands + value.getResultNumber()]);
    ShardingAttr sharding =
        written ? written.getShardings()[value.getResultNumber()]
                : ShardingAttr();
    if (sharding) {
      if (failed(pin(value, sharding, op)))
        return failure();
      chargeWrite(value, node, layouts, result.pinned[value]);
      continue;
    }
    addFreeValue(value, node, std::move(layouts));
  }
  return success();
}

void AutoShardProblemBuilder::addReturn(Operation *op) {
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    if (auto written = function.getResultAttrOfType<ShardingAttr>(
            i, SpmdDialect::kShardingAttrName)) {
      llvm::Expected<ShardState> target =
          toState(mesh, written.toTensorSharding());
      if (!target || written.getMesh() != meshSymbol ||
          !isStaticTensor(operand)) {
        llvm::consumeError(target.takeError());
        continue;
      }
      // The returned copy is held to the end beside the value.
      unsigned at = position[op];
      if (auto it = result.free.find(operand); it != result.free.end()) {
        auto [node, layouts] = it->second;
        for (auto [s, layout] : llvm::enumerate(layouts)) {
          nodes[node].cost[s] += reshard(operand, layout, *target);
          if (!(layout == *target))
            heldCopy(operand, node, -1, layouts.size()).bytes[s] +=
                copyBytes(operand, layout, *target);
        }
      } else if (auto it = result.pinned.find(operand);
                 it != result.pinned.end()) {
        result.fixedSeconds += reshard(operand, it->second, *target);
        if (!(it->second == *target))
          fixedHeld.push_back(
              {heldFrom(operand), at, copyBytes(operand, it->second, *target)});
      }
      continue;
    }
    auto it = result.free.find(operand);
    if (it == result.free.end())
      continue;
    // An unannotated result takes any layout, resharded into from its
    // value's (a pending value is reduced, or reduce-scattered).
    std::vector<ShardState> targets = everyLayout(shapeOf(operand));
    unsigned target = addNode(targets.size(), nullptr);
    nodes[target].result = int(i);
    for (size_t s = 0; s < targets.size(); ++s)
      chargeRead(operand, target, s, targets[s]);
    result.results.push_back({unsigned(i), {target, std::move(targets)}});
  }
}

llvm::hash_code AutoShardProblemBuilder::opKey(Operation *op, int depth) {
  auto [it, inserted] = keys.try_emplace({op, depth});
  if (!inserted)
    return it->second;
  // Inherent attributes (indexing maps, dimensions, permutations) live in
  // properties: both they and the discardable ones tell ops apart.
  llvm::hash_code key =
      llvm::hash_combine(op->getName().getAsOpaquePointer(),
                         op->getRawDictionaryAttrs().getAsOpaquePointer(),
                         op->getPropertiesAsAttribute().getAsOpaquePointer());
  for (Type type : op->getResultTypes())
    key = llvm::hash_combine(key, type.getAsOpaquePointer());
  for (Value operand : op->getOperands()) {
    key = llvm::hash_combine(key, operand.getType().getAsOpaquePointer());
    Operation *def = operand.getDefiningOp();
    if (depth > 0 && def && position.count(def))
      key = llvm::hash_combine(key, opKey(def, depth - 1),
                               cast<OpResult>(operand).getResultNumber());
  }
  keys[{op, depth}] = key;
  return key;
}

/// Nodes with one key have the same strategies and neighbourhood: the
/// same op on the same types, fed by the same ops three levels up.
llvm::hash_code AutoShardProblemBuilder::nodeKey(const Node &node) {
  constexpr int kDepth = 3;
  llvm::hash_code key = llvm::hash_combine(node.argument >= 0, node.result,
                                           node.cost.size(), node.numValues);
  if (node.anchor)
    key = llvm::hash_combine(key, opKey(node.anchor, kDepth));
  if (node.argument >= 0) {
    Value arg = function.getArgument(node.argument);
    key = llvm::hash_combine(
        key, arg.getType().getAsOpaquePointer(),
        function.getArgAttr(node.argument, SpmdDialect::kShardingAttrName)
            .getAsOpaquePointer());
    if (node.anchor)
      for (OpOperand &use : arg.getUses())
        if (use.getOwner() == node.anchor)
          key = llvm::hash_combine(key, use.getOperandNumber());
  }
  for (Operation *follower : node.followers)
    key = llvm::hash_combine(key, opKey(follower, 0));
  return key;
}

/// Merges nodes into classes (one per key on large graphs) and makes the
/// problem's nodes, values and edges over the classes.
void AutoShardProblemBuilder::share() {
  result.nodesBeforeSharing = nodes.size();
  classOf.assign(nodes.size(), 0);
  // Keyed by the strategy count too: a hash collision must not merge
  // nodes whose strategies differ in number.
  std::map<std::pair<size_t, size_t>, unsigned> classes;
  bool sharing = nodes.size() > settings.shareAbove;
  unsigned numClasses = 0;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (!sharing) {
      classOf[n] = numClasses++;
      continue;
    }
    auto [it, inserted] = classes.try_emplace(
        {size_t(nodeKey(nodes[n])), nodes[n].cost.size()}, numClasses);
    numClasses += inserted;
    classOf[n] = it->second;
  }
  ShardingProblem &problem = result.problem;
  problem.nodes.resize(numClasses);
  result.compute.resize(numClasses);
  for (size_t n = 0; n < nodes.size(); ++n) {
    std::vector<double> &cost = problem.nodes[classOf[n]].cost;
    std::vector<double> &compute = result.compute[classOf[n]];
    cost.resize(nodes[n].cost.size(), 0);
    compute.resize(nodes[n].cost.size(), 0);
    for (size_t s = 0; s < cost.size(); ++s) {
      cost[s] += nodes[n].cost[s];
      compute[s] += nodes[n].compute[s];
    }
  }
  llvm::MapVector<std::pair<unsigned, unsigned>, std::vector<double>> merged;
  for (auto &[ends, cost] : edges) {
    unsigned from = classOf[ends.first], to = classOf[ends.second];
    size_t width = nodes[ends.second].cost.size();
    if (from == to) {
      // Both ends make the same choice: only the diagonal is ever paid.
      for (size_t s = 0; s < width; ++s)
        problem.nodes[from].cost[s] += cost[s * width + s];
      continue;
    }
    std::vector<double> &sum = merged[{from, to}];
    sum.resize(cost.size(), 0);
    for (size_t i = 0; i < cost.size(); ++i)
      sum[i] += cost[i];
  }
  for (auto &[ends, cost] : merged) {
    edgeOf[ends] = problem.edges.size();
    problem.edges.push_back({ends.first, ends.second, std::move(cost)});
  }
  for (auto &entry : result.free)
    entry.second.node = classOf[entry.second.node];
  for (auto &entry : result.results)
    entry.second.node = classOf[entry.second.node];
  for (auto &entry : result.splits)
    entry.second.node = classOf[entry.second.node];
  for (ModelValue &v : values)
    v.node = classOf[v.node];
}

/// One live set per program point where a value starts, over the values of
/// the classes (so repeated layers give the same sets, kept once).
void AutoShardProblemBuilder::addLiveSets() {
  ShardingProblem &problem = result.problem;
  Block &body = function.getBody().front();
  unsigned end = body.getOperations().size() + 1;
  auto lastUse = [&](Value value) {
    unsigned last = 0;
    for (Operation *user : value.getUsers())
      if (Operation *top = body.findAncestorOpInBlock(*user))
        last = std::max(last, isa<func::ReturnOp>(top) ? end : position[top]);
    return last;
  };
  auto defined = [&](Value value) -> unsigned {
    Operation *def = value.getDefiningOp();
    return def ? position[def] : 0;
  };
  // Canonical values: (class, index among the node's values).
  std::map<std::pair<unsigned, unsigned>, unsigned> canonical;
  // Events per position: values starting and ending there.
  std::vector<std::vector<std::pair<unsigned, double>>> starts(end + 1),
      ends(end + 1);
  for (ModelValue &v : values) {
    auto [it, inserted] =
        canonical.try_emplace({v.node, v.local}, problem.values.size());
    if (inserted)
      problem.values.push_back({v.node, v.bytes});
    unsigned from = defined(v.value);
    unsigned to = std::max(from, lastUse(v.value));
    if (isa<BlockArgument>(v.value))
      to = end;
    starts[from].push_back({it->second, -1});
    ends[to].push_back({it->second, -1});
  }
  for (auto &[value, bytes] : pinnedBytes) {
    unsigned from = defined(value);
    unsigned to =
        isa<BlockArgument>(value) ? end : std::max(from, lastUse(value));
    starts[from].push_back({0, bytes});
    ends[to].push_back({0, bytes});
  }
  for (auto [from, to, bytes] : fixedHeld) {
    starts[from].push_back({0, bytes});
    ends[to].push_back({0, bytes});
  }
  // Copies and buffers as terms over the classes, each kept once.
  using Term = std::tuple<bool, unsigned, std::vector<double>>;
  std::map<Term, unsigned> termIds;
  std::vector<const Term *> terms;
  std::vector<std::vector<unsigned>> termStarts(end + 1), termEnds(end + 1);
  for (Held &h : held) {
    Term term{false, classOf[h.node], h.bytes};
    if (h.producer >= 0) {
      unsigned from = classOf[h.producer], to = classOf[h.node];
      if (from == to) {
        // Both ends make the same choice: only the diagonal is held.
        size_t width = problem.strategies(to);
        std::vector<double> diagonal(width);
        for (size_t s = 0; s < width; ++s)
          diagonal[s] = h.bytes[s * width + s];
        term = {false, to, std::move(diagonal)};
      } else {
        term = {true, edgeOf.at({from, to}), h.bytes};
      }
    }
    if (llvm::all_of(std::get<2>(term), [](double b) { return b == 0; }))
      continue;
    auto [it, inserted] = termIds.try_emplace(std::move(term), terms.size());
    if (inserted)
      terms.push_back(&it->first);
    termStarts[h.from].push_back(it->second);
    termEnds[std::max(h.from, h.to)].push_back(it->second);
  }
  std::map<unsigned, unsigned> live, liveTerms;
  double fixed = 0;
  std::set<std::tuple<std::vector<std::pair<unsigned, unsigned>>,
                      std::vector<std::pair<unsigned, unsigned>>, double>>
      seen;
  for (unsigned p = 0; p <= end; ++p) {
    for (auto [value, bytes] : starts[p]) {
      if (bytes >= 0)
        fixed += bytes;
      else
        ++live[value];
    }
    for (unsigned t : termStarts[p])
      ++liveTerms[t];
    if (!starts[p].empty() || !termStarts[p].empty()) {
      std::vector<std::pair<unsigned, unsigned>> set(live.begin(), live.end());
      std::vector<std::pair<unsigned, unsigned>> held(liveTerms.begin(),
                                                      liveTerms.end());
      if (seen.insert({set, held, fixed}).second) {
        ShardingProblem::LiveSet liveSet;
        liveSet.fixedBytes = fixed;
        for (auto [value, count] : set)
          liveSet.values.insert(liveSet.values.end(), count, value);
        for (auto [t, count] : held) {
          const auto &[isEdge, id, bytes] = *terms[t];
          for (unsigned c = 0; c < count; ++c) {
            if (isEdge)
              liveSet.edgeTerms.push_back({id, bytes});
            else
              liveSet.nodeTerms.push_back({id, bytes});
          }
        }
        problem.liveSets.push_back(std::move(liveSet));
      }
    }
    for (auto [value, bytes] : ends[p]) {
      if (bytes >= 0)
        fixed -= bytes;
      else if (--live[value] == 0)
        live.erase(value);
    }
    for (unsigned t : termEnds[p])
      if (--liveTerms[t] == 0)
        liveTerms.erase(t);
  }
}

void AutoShardProblemBuilder::holdRemadeBuffers() {
  std::map<std::pair<size_t, std::vector<int64_t>>, unsigned> lastRead;
  for (const RemadeRead &r : remadeReads)
    lastRead[r.type] = std::max(lastRead[r.type], r.at);
  // A reader whose strategy takes a local type holds its buffer for the
  // later reads that may take it too: from after its own read (which its
  // copy covers) to before the last one (which that reader's copy covers).
  // Each buffer held is charged to one of the readers taking it at least.
  std::map<std::pair<unsigned, std::pair<size_t, std::vector<int64_t>>>,
           unsigned>
      heldFor;
  for (const RemadeRead &r : remadeReads) {
    unsigned last = lastRead[r.type];
    if (r.at + 1 >= last)
      continue;
    auto [it, inserted] = heldFor.try_emplace({r.node, r.type}, held.size());
    if (inserted)
      held.push_back({r.at + 1, last - 1, r.node, -1,
                      std::vector<double>(r.strategies, 0)});
    double &bytes = held[it->second].bytes[r.strategy];
    bytes = std::max(bytes, r.bytes);
  }
}

LogicalResult AutoShardProblemBuilder::build() {
  Block &body = function.getBody().front();
  unsigned p = 0;
  for (Operation &op : body)
    position[&op] = ++p;
  for (BlockArgument argument : body.getArguments())
    if (failed(addArgument(argument)))
      return failure();
  for (Operation &op : body) {
    current = &op;
    if (isa<func::ReturnOp>(op))
      addReturn(&op);
    else if (failed(addOp(&op)))
      return failure();
  }
  holdRemadeBuffers();
  LLVM_DEBUG(llvm::dbgs() << "auto-shard: " << nodes.size() << " nodes, "
                          << edges.size() << " edges, " << values.size()
                          << " values\n");
  share();
  addLiveSets();
  result.problem.memoryBudget = settings.memoryBudget;
  return success();
}

FailureOr<AutoShardProblem>
AutoShardProblem::build(func::FuncOp function, const MeshInfo &mesh,
                        ArrayRef<bool> dcnAxes,
                        const AutoShardSettings &settings,
                        std::chrono::steady_clock::time_point deadline) {
  AutoShardProblem result;
  AutoShardProblemBuilder builder(result, function, mesh, dcnAxes, settings,
                                  deadline);
  if (failed(builder.build()))
    return failure();
  return result;
}

std::optional<ShardState>
AutoShardProblem::layout(Value value, ArrayRef<unsigned> choice) const {
  if (auto it = pinned.find(value); it != pinned.end())
    return it->second;
  auto it = free.find(value);
  if (it == free.end())
    return std::nullopt;
  return it->second.layouts[choice[it->second.node]];
}

std::optional<ShardState>
AutoShardProblem::resultLayout(unsigned index,
                               ArrayRef<unsigned> choice) const {
  for (const auto &[i, chosen] : results)
    if (i == index)
      return chosen.layouts[choice[chosen.node]];
  return std::nullopt;
}

std::optional<ArrayRef<AxisList>>
AutoShardProblem::factorSplit(Operation *op, ArrayRef<unsigned> choice) const {
  auto it = splits.find(op);
  if (it == splits.end())
    return std::nullopt;
  return ArrayRef<AxisList>(it->second.factorAxes[choice[it->second.node]]);
}

double AutoShardProblem::seconds(ArrayRef<unsigned> choice) const {
  double total = fixedSeconds;
  for (size_t v = 0; v < problem.nodes.size(); ++v)
    total += problem.nodes[v].cost[choice[v]];
  for (const ShardingProblem::Edge &e : problem.edges)
    total += e.cost[choice[e.from] * problem.strategies(e.to) + choice[e.to]];
  return total;
}

double AutoShardProblem::computeSeconds(ArrayRef<unsigned> choice) const {
  double total = 0;
  for (size_t v = 0; v < compute.size(); ++v)
    total += compute[v][choice[v]];
  return total;
}
