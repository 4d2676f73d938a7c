//===- RulePartitioner.cpp - Partitioning through factor rules ------------===//
//
// For an op with a factor rule (ir/ShardingInterface.h): every factor is split
// over some mesh axes (possibly none). The choice is made by cost among the
// splits the op's tensors suggest (its annotated results, its operands'
// current layouts): bytes moved to bring operands into the layouts the
// choice implies, plus bytes to bring results to their annotated layouts,
// plus local compute at kBytesPerFlop. Split reduction factors leave the
// results partial (pending reductions), reduced by whoever needs them.
//
//===----------------------------------------------------------------------===//

#include "ir/FactorSplit.h"
#include "ir/Locations.h"
#include "ir/Namespaces.h"
#include "partitioner/CapturedReads.h"
#include "partitioner/Halo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Format.h"

#define DEBUG_TYPE "spmd-partition"

using namespace mlir;
using namespace mlir::spmd;
using Reduction = ReductionKind;

/// Local compute is charged as this many bytes of communication per
/// iteration (one multiply-add): communicating a byte costs about as much as
/// 16 multiply-adds on the CPUs and interconnects we target. It only decides
/// between plans that move the same bytes but replicate different work.
static constexpr double kBytesPerIteration = 1.0 / 16;

namespace {
/// An operand made by an op that only moves its own operand through
/// windows (a pad, a slice: ShardingOpInterface::onlyMovesThroughWindows),
/// read by this op through windows along some of those dimensions. This op
/// may read the producer's operand instead, its windows composed with the
/// producer's: the producer's border is then made on each device and only
/// this op's halo moves, rather than the producer's result being split on
/// its own grid and both exchanging halos that do not line up.
struct ReadThrough {
  Value source; // the producer's operand
  RankedTensorType type;
  ShardState current;
  bool remade = false;
  /// The producer's windows, on the source's dimensions.
  SmallVector<WindowedDim> shifts;
  /// This op's windows on the operand, read from the source.
  SmallVector<WindowedDim> windows;
  /// The halos the producer exchanged, when this op is its only user: the
  /// bytes reading through saves besides this op's own.
  double producerHalos = 0;
};

/// One tensor of the rule: its value, its global type, and where it is.
struct RuleTensor {
  Value global;
  RankedTensorType type;
  bool isResult;
  ShardState current;   // operands: current layout
  ShardState annotated; // results: the layout propagation chose
  bool remade = false;  // operands: made from scalars, remade in any layout
  std::optional<ReadThrough> through; // operands: the producer's operand
};

class RuleChoice {
public:
  RuleChoice(Operation *op, const OpShardingRule &rule, const MeshInfo &mesh,
             SmallVectorImpl<RuleTensor> &tensors,
             std::optional<Reduction> combiner, ReshardPlanCache &plans)
      : op(op), rule(rule), mesh(mesh), tensors(tensors), combiner(combiner),
        plans(plans), windows(rule.windows) {}

  /// The reduction factors `split` leaves with padded shards.
  SmallVector<unsigned> paddedReductions(
      const std::vector<AxisList> &split) const {
    SmallVector<unsigned> padded;
    for (unsigned f = 0; f < rule.numFactors(); ++f)
      if (rule.factorKinds[f] == FactorKind::Reduction && !split[f].empty() &&
          rule.factorSizes[f] % mesh.mesh.groupSize(split[f]) != 0)
        padded.push_back(f);
    return padded;
  }

  /// Input dimensions read through windows (convolutions, pooling, slices).
  llvm::ArrayRef<WindowedDim> windowed() const { return windows; }

  /// Whether operand `t` is best read through its producer under `split`.
  bool readsThrough(unsigned t, const std::vector<AxisList> &split) const;
  /// The halo of `window`, read from a dimension of `inputSize` elements.
  std::optional<HaloShape> halo(const WindowedDim &window, int64_t inputSize,
                                const std::vector<AxisList> &split) const {
    return haloShape(window, rule.factorSizes[window.factor], inputSize,
                     mesh.mesh.groupSize(split[window.factor]));
  }
  /// The halo of `window` under a chosen split: choose costed it, so it
  /// exists.
  HaloShape chosenHalo(const WindowedDim &window, int64_t inputSize,
                       const std::vector<AxisList> &split) const {
    std::optional<HaloShape> shape = halo(window, inputSize, split);
    assert(shape && "a chosen split has the halos it was costed with");
    return *shape;
  }

  /// Whether factor `f` may be split at all.
  bool splittable(unsigned f) const;
  /// The cheapest valid split of every factor, and its cost; `only`, if
  /// given and valid.
  std::optional<std::vector<AxisList>>
  choose(const std::vector<AxisList> *only = nullptr);
  double chosenCost() const { return bestCost; }
  /// Whether the choice asked the op itself (how it treats padding), not
  /// only its rule and tensors.
  bool askedTheOp() const { return askedOp; }
  size_t numCandidates() const { return evaluated; }

  /// The layout of tensor `t` under `split`, or nullopt if some factor's
  /// axes cannot be expressed on its dimensions.
  std::optional<ShardState> layout(unsigned t,
                                   const std::vector<AxisList> &split) const;

private:
  std::optional<double> cost(const std::vector<AxisList> &split) const;
  /// Bytes to bring a tensor of `type` from `from` to `to` (nothing when it
  /// is `remade`), plus the halos of the split `windows` read from it.
  std::optional<double> inputCost(RankedTensorType type, const ShardState &from,
                                  const ShardState &to, bool remade,
                                  ArrayRef<WindowedDim> windows,
                                  const std::vector<AxisList> &split) const;
  /// inputCost of operand `t` read through its producer; nullopt when
  /// `split` splits a dimension the producer shifts that this op does not
  /// read through a split window.
  std::optional<double> throughCost(unsigned t,
                                    const std::vector<AxisList> &split) const;
  /// inputCost of operand `t` as it is (with the halos its producer
  /// exchanged when reading through would make them dead).
  std::optional<double> directCost(unsigned t,
                                   const std::vector<AxisList> &split) const;
  std::vector<std::vector<AxisList>> candidates() const;

  Operation *op;
  const OpShardingRule &rule;
  const MeshInfo &mesh;
  SmallVectorImpl<RuleTensor> &tensors;
  std::optional<Reduction> combiner;
  ReshardPlanCache &plans;
  ArrayRef<WindowedDim> windows;
  double bestCost = 0;
  size_t evaluated = 0;
  mutable bool askedOp = false;
};
} // namespace

std::optional<ShardState>
RuleChoice::layout(unsigned t, const std::vector<AxisList> &split) const {
  ShardState state;
  for (const DimFactors &factors : rule.tensors[t]) {
    AxisList axes = composeDim(factors, split, rule.factorSizes, mesh.mesh);
    size_t wanted = 0;
    for (unsigned f : factors)
      wanted += split[f].size();
    if (axes.size() != wanted)
      return std::nullopt;
    state.dims.push_back(std::move(axes));
  }
  if (tensors[t].isResult && combiner) {
    for (unsigned f = 0; f < rule.numFactors(); ++f)
      if (rule.factorKinds[f] == FactorKind::Reduction)
        state.partial.append(split[f].begin(), split[f].end());
    state.reduction = *combiner;
  }
  return state;
}

std::vector<std::vector<AxisList>> RuleChoice::candidates() const {
  std::vector<std::vector<AxisList>> options(rule.numFactors(), {AxisList()});
  auto suggest = [&](unsigned t, const ShardState &state) {
    SmallVector<AxisList> projected(rule.numFactors());
    for (auto [d, factors] : llvm::enumerate(rule.tensors[t]))
      projectDim(state.dims[d], factors, rule.factorSizes, mesh.mesh,
                 projected);
    for (unsigned f = 0; f < rule.numFactors(); ++f)
      if (!projected[f].empty() &&
          !llvm::is_contained(options[f], projected[f]))
        options[f].push_back(projected[f]);
  };
  for (auto [t, tensor] : llvm::enumerate(tensors)) {
    if (tensor.type)
      suggest(t, tensor.isResult ? tensor.annotated : tensor.current);
    if (tensor.through)
      suggest(t, tensor.through->current);
  }
  for (unsigned f = 0; f < rule.numFactors(); ++f)
    if (!splittable(f))
      options[f] = {AxisList()};
  return options;
}

bool RuleChoice::splittable(unsigned f) const {
  // A permutation factor may be split when it is the spatial loop of input
  // windows (halos then bring the neighbours' elements).
  FactorKind kind = rule.factorKinds[f];
  bool spatial = llvm::any_of(
      windows, [&](const WindowedDim &w) { return w.factor == f; });
  return kind != FactorKind::NeedReplication &&
         (kind != FactorKind::Permutation || spatial) &&
         (kind != FactorKind::Reduction || combiner);
}

std::optional<double>
RuleChoice::inputCost(RankedTensorType type, const ShardState &from,
                      const ShardState &to, bool remade,
                      ArrayRef<WindowedDim> windows,
                      const std::vector<AxisList> &split) const {
  double total = 0;
  // An operand made from scalars (a zero-filled init) is remade in the
  // layout wanted, moving nothing.
  if (!remade) {
    const ReshardPlan *plan =
        plans.plan(mesh.mesh, type.getShape(),
                   elementBytes(type.getElementType()), from, to);
    if (!plan)
      return std::nullopt;
    total += plan->cost;
  }
  // Halos: the rows sent to each neighbour.
  for (const WindowedDim &window : windows) {
    if (split[window.factor].empty())
      continue;
    std::optional<HaloShape> shape =
        halo(window, type.getDimSize(window.dim), split);
    if (!shape)
      return std::nullopt;
    std::vector<int64_t> local = localShape(mesh.mesh, type.getShape(), to);
    double rowBytes = double(product(local)) / local[window.dim] *
                      elementBytes(type.getElementType());
    total += (shape->left + shape->right) * rowBytes;
  }
  return total;
}

std::optional<double>
RuleChoice::throughCost(unsigned t, const std::vector<AxisList> &split) const {
  const std::optional<ReadThrough> &through = tensors[t].through;
  if (!through)
    return std::nullopt;
  std::optional<ShardState> state = layout(t, split);
  if (!state)
    return std::nullopt;
  // A shifted dimension is split only where this op's window follows it.
  for (const WindowedDim &shift : through->shifts)
    if (!state->dims[shift.dim].empty() &&
        llvm::none_of(through->windows, [&](const WindowedDim &w) {
          return w.dim == shift.dim && !split[w.factor].empty();
        }))
      return std::nullopt;
  return inputCost(through->type, through->current, *state, through->remade,
                   through->windows, split);
}

std::optional<double>
RuleChoice::directCost(unsigned t, const std::vector<AxisList> &split) const {
  std::optional<ShardState> state = layout(t, split);
  if (!state)
    return std::nullopt;
  SmallVector<WindowedDim> own;
  for (const WindowedDim &window : windows)
    if (window.operand == t)
      own.push_back(window);
  const RuleTensor &tensor = tensors[t];
  std::optional<double> cost =
      inputCost(tensor.type, tensor.current, *state, tensor.remade, own, split);
  if (cost && tensor.through)
    *cost += tensor.through->producerHalos;
  return cost;
}

bool RuleChoice::readsThrough(unsigned t,
                              const std::vector<AxisList> &split) const {
  std::optional<double> through = throughCost(t, split);
  if (!through)
    return false;
  std::optional<double> direct = directCost(t, split);
  return !direct || *through <= *direct;
}

std::optional<double>
RuleChoice::cost(const std::vector<AxisList> &split) const {
  // Padding of an uneven reduction must add nothing: the op masks it or
  // skips it, or the split is not an option.
  SmallVector<unsigned> padded = paddedReductions(split);
  if (!padded.empty()) {
    askedOp = true;
    auto sharding = llvm::dyn_cast<ShardingOpInterface>(op);
    if (!sharding || (!sharding.skipsPaddedIterations() &&
                      !sharding.getIdentityPaddedOperands(padded)))
      return std::nullopt;
  }
  double total = 0;
  for (auto [t, tensor] : llvm::enumerate(tensors)) {
    if (!tensor.type)
      continue;
    std::optional<ShardState> state = layout(t, split);
    if (!state)
      return std::nullopt;
    if (tensor.isResult) {
      std::optional<double> c =
          inputCost(tensor.type, *state, tensor.annotated, false, {}, split);
      if (!c)
        return std::nullopt;
      total += *c;
      continue;
    }
    std::optional<double> direct = directCost(t, split);
    std::optional<double> through = throughCost(t, split);
    if (!direct && !through)
      return std::nullopt;
    total += std::min(direct.value_or(INFINITY), through.value_or(INFINITY));
  }
  double iterations = 1;
  for (unsigned f = 0; f < rule.numFactors(); ++f)
    iterations *=
        llvm::divideCeil(rule.factorSizes[f], mesh.mesh.groupSize(split[f]));
  return total + kBytesPerIteration * iterations;
}

std::optional<std::vector<AxisList>>
RuleChoice::choose(const std::vector<AxisList> *only) {
  std::vector<std::vector<AxisList>> options;
  if (only) {
    for (auto [f, axes] : llvm::enumerate(*only)) {
      if (!axes.empty() && !splittable(f))
        return std::nullopt;
      options.push_back({axes});
    }
  } else {
    options = candidates();
  }
  // Too many combinations: keep the first suggestion of each factor.
  double combinations = 1;
  for (const auto &o : options)
    combinations *= o.size();
  if (combinations > 4096)
    for (auto &o : options)
      o.resize(std::min<size_t>(o.size(), 2));

  std::optional<std::vector<AxisList>> best;
  std::vector<AxisList> split(rule.numFactors());
  SmallVector<bool, 8> used(mesh.mesh.rank(), false);
  std::function<void(unsigned)> search = [&](unsigned f) {
    if (f == rule.numFactors()) {
      ++evaluated;
      std::optional<double> c = cost(split);
      if (c && (!best || *c < bestCost)) {
        best = split;
        bestCost = *c;
      }
      return;
    }
    for (const AxisList &axes : options[f]) {
      if (llvm::any_of(axes, [&](AxisIndex a) { return used[a]; }))
        continue;
      for (AxisIndex a : axes)
        used[a] = true;
      split[f] = axes;
      search(f + 1);
      for (AxisIndex a : axes)
        used[a] = false;
    }
  };
  search(0);
  return best;
}

/// Whether every device may start from `init`: it is filled with a value
/// v that `combiner` leaves alone, combine(v, v) == v (any value for max
/// and min, +0 or -0 for sums).
static bool everyDeviceMayAdd(Value init, Reduction combiner) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  Attribute value;
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&value)))
    return false;
  if (combiner != Reduction::Sum)
    return true;
  if (auto f = llvm::dyn_cast<FloatAttr>(value))
    return f.getValue().isZero();
  if (auto i = llvm::dyn_cast<IntegerAttr>(value))
    return i.getValue().isZero();
  return false;
}

/// The bytes of the halos the producer of `result`, in layout `state`,
/// exchanged along its split shifts.
static double shiftHalos(const ReadThrough &through, RankedTensorType result,
                         const ShardState &state, const MeshInfo &mesh) {
  double bytes = 0;
  std::vector<int64_t> local =
      localShape(mesh.mesh, through.type.getShape(), state);
  int64_t elements = product(local);
  for (const WindowedDim &shift : through.shifts) {
    const AxisList &axes = state.dims[shift.dim];
    if (axes.empty())
      continue;
    int64_t size = through.type.getDimSize(shift.dim);
    std::optional<HaloShape> halo = haloShape(
        shift, result.getDimSize(shift.dim), size, mesh.mesh.groupSize(axes));
    if (halo)
      bytes += double(halo->left + halo->right) * elements / local[shift.dim] *
               elementBytes(through.type.getElementType());
  }
  return bytes;
}

/// How operand `t` of an op reading it through `windows` may be read
/// through its producer (ReadThrough), if the producer only moves its own
/// operand and some of those windows follow the producer's.
static std::optional<ReadThrough>
producerRead(Partitioner &p, Operation *consumer, Value operand, unsigned t,
             ArrayRef<WindowedDim> windows, const MeshInfo *mesh) {
  const OpShardingRule *rule = p.movingRule(operand);
  if (!rule)
    return std::nullopt;
  Value source = operand.getDefiningOp()->getOperand(0);
  auto type = llvm::dyn_cast<RankedTensorType>(source.getType());
  auto result = llvm::cast<RankedTensorType>(operand.getType());
  if (!type || !type.hasStaticShape() || type.getRank() != result.getRank() ||
      !p.has(source) || p.lookup(source).mesh != mesh)
    return std::nullopt;
  if (rule->tensors.size() < 2 ||
      rule->tensors.front() != rule->tensors.back() ||
      rule->tensors.front().size() != size_t(type.getRank()))
    return std::nullopt;
  ReadThrough through{source, type, p.lookup(source).state,
                      p.isRematerializable(source)};
  for (const WindowedDim &shift : rule->windows) {
    if (shift.operand != 0 || shift.stride != 1 || shift.extent != 0)
      return std::nullopt;
    through.shifts.push_back(shift);
  }
  // Dimensions without a shift are copied whole.
  for (auto [d, factors] : llvm::enumerate(rule->tensors.front()))
    if (factors.size() != 1 ||
        (rule->factorKinds[factors[0]] != FactorKind::Parallel &&
         llvm::none_of(through.shifts, [&, d = d](const WindowedDim &shift) {
           return shift.dim == d;
         })))
      return std::nullopt;
  bool composed = false;
  for (const WindowedDim &window : windows) {
    if (window.operand != t)
      continue;
    auto shift = llvm::find_if(through.shifts, [&](const WindowedDim &s) {
      return s.dim == window.dim;
    });
    if (shift == through.shifts.end()) {
      through.windows.push_back(window);
      continue;
    }
    std::optional<WindowedDim> read = readThrough(window, *shift);
    if (!read)
      return std::nullopt;
    through.windows.push_back(*read);
    composed = true;
  }
  if (!composed)
    return std::nullopt;
  // Counted once, on the first operand it is.
  auto first = llvm::find_if(consumer->getOpOperands(),
                             [&](OpOperand &o) { return o.get() == operand; });
  if (first->getOperandNumber() == t &&
      llvm::all_of(operand.getUsers(),
                   [&](Operation *user) { return user == consumer; }))
    through.producerHalos =
        shiftHalos(through, result, p.lookup(operand).state, *mesh);
  return through;
}

/// Operand `t` made on this device from its producer's operand `local`, in
/// layout `state` (ReadThrough): this op's split windows with their halos,
/// then the producer's shifts along the dimensions no device splits.
static Value emitReadThrough(OpBuilder &b, Location loc, Value local,
                             const ReadThrough &through,
                             RankedTensorType operandType,
                             const ShardState &state, const RuleChoice &choice,
                             const std::vector<AxisList> &split,
                             const MeshInfo &mesh) {
  for (const WindowedDim &window : through.windows) {
    const AxisList &axes = split[window.factor];
    if (!axes.empty())
      local = emitHaloWindow(
          b, loc, local, window,
          choice.chosenHalo(window, through.type.getDimSize(window.dim), split),
          mesh, axes);
  }
  for (const WindowedDim &shift : through.shifts)
    if (state.dims[shift.dim].empty())
      local = emitWholeWindow(b, loc, local, shift,
                              operandType.getDimSize(shift.dim));
  return local;
}

static void appendWindowsKey(ArrayRef<WindowedDim> windows,
                             std::vector<int64_t> &key) {
  for (const WindowedDim &w : windows)
    key.insert(key.end(), {int64_t(w.operand), int64_t(w.dim),
                           int64_t(w.factor), w.stride, w.extent, w.offset});
  key.push_back(-1);
}

/// Everything RuleChoice::choose and the layouts and local types of its
/// split depend on, but for what it may ask the op itself, flattened to
/// integers into `key`: the op's kind, rule, windows and combiner, and each
/// tensor's type and layout. Repeated layers then decide once.
static void choiceKey(Operation *op, const OpShardingRule &rule,
                      const MeshInfo &mesh, ArrayRef<RuleTensor> tensors,
                      std::optional<Reduction> combiner,
                      std::vector<int64_t> &key) {
  key.clear();
  auto list = [&](auto &&values) {
    key.push_back(std::size(values));
    key.insert(key.end(), std::begin(values), std::end(values));
  };
  key.push_back(reinterpret_cast<intptr_t>(&mesh));
  key.push_back(
      reinterpret_cast<intptr_t>(op->getName().getAsOpaquePointer()));
  key.push_back(combiner ? int64_t(*combiner) : -1);
  list(rule.factorSizes);
  for (FactorKind kind : rule.factorKinds)
    key.push_back(int64_t(kind));
  for (const TensorFactors &dims : rule.tensors) {
    key.push_back(dims.size());
    for (const DimFactors &factors : dims)
      list(factors);
  }
  appendWindowsKey(rule.windows, key);
  for (const RuleTensor &tensor : tensors) {
    if (!tensor.type) {
      key.push_back(-1);
      continue;
    }
    key.push_back(reinterpret_cast<intptr_t>(
        tensor.type.getElementType().getAsOpaquePointer()));
    list(tensor.type.getShape());
    key.push_back(tensor.remade);
    (tensor.isResult ? tensor.annotated : tensor.current).appendKey(key);
    key.push_back(tensor.through.has_value());
    if (!tensor.through)
      continue;
    list(tensor.through->type.getShape());
    key.push_back(tensor.through->remade);
    key.push_back(int64_t(tensor.through->producerHalos));
    tensor.through->current.appendKey(key);
    appendWindowsKey(tensor.through->shifts, key);
    appendWindowsKey(tensor.through->windows, key);
  }
}

/// The split of `op` (`only`, if given and valid, else the cheapest) and
/// what follows from it for each of its `tensors` (operands, then results).
static RuleDecision decide(Operation *op, RuleChoice &choice,
                           const std::vector<AxisList> *only,
                           ArrayRef<RuleTensor> tensors, const MeshInfo &mesh) {
  RuleDecision decision;
  decision.split = choice.choose(only);
  if (only && !decision.split) {
    op->emitWarning("the factor split written on this op ('")
        << SpmdDialect::kFactorSplitAttrName
        << "') is not a valid split of it; another is chosen";
    decision.split = choice.choose();
  }
  if (!decision.split)
    return decision;
  unsigned numOperands = op->getNumOperands();
  decision.layouts.resize(tensors.size());
  decision.localTypes.resize(tensors.size());
  decision.readsThrough.resize(numOperands);
  for (auto [t, tensor] : llvm::enumerate(tensors)) {
    if (!tensor.type)
      continue;
    std::optional<ShardState> layout = choice.layout(t, *decision.split);
    assert(layout && layout->dims.size() == size_t(tensor.type.getRank()) &&
           "a chosen split lays out every tensor at its rank");
    decision.layouts[t] = std::move(*layout);
    decision.localTypes[t] = localType(tensor.type, mesh, decision.layouts[t]);
    if (t < numOperands && choice.readsThrough(t, *decision.split))
      decision.readsThrough.set(t);
  }
  return decision;
}

/// The tensors of `op`'s rule (operands, then results) with their layouts,
/// and the op's mesh: its results' (from propagation), else its operands';
/// null when none of its tensors has one.
static FailureOr<const MeshInfo *>
collectRuleTensors(Partitioner &p, Operation *op,
                   SmallVectorImpl<RuleTensor> &tensors) {
  const MeshInfo *mesh = nullptr;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = llvm::dyn_cast<RankedTensorType>(operand.get().getType());
    RuleTensor tensor{operand.get(), type, false};
    if (type) {
      const LocalValue &local = p.lookup(operand.get());
      tensor.current = local.state;
      tensor.remade = p.isRematerializable(operand.get());
      mesh = mesh ? mesh : local.mesh;
    }
    tensors.push_back(std::move(tensor));
  }
  for (Value result : op->getResults()) {
    auto type = llvm::dyn_cast<RankedTensorType>(result.getType());
    RuleTensor tensor{result, type, true};
    if (type) {
      FailureOr<Layout> layout = p.annotatedLayout(result);
      if (failed(layout))
        return failure();
      tensor.annotated = layout->second;
      mesh = layout->first;
    }
    tensors.push_back(std::move(tensor));
  }
  for (const RuleTensor &tensor : tensors)
    if (mesh && tensor.type && !tensor.isResult &&
        p.lookup(tensor.global).mesh != mesh)
      return op->emitError("operands on different meshes cannot be partitioned "
                           "together");
  return mesh;
}

/// Appends the split written on an op (`only`) to its choice's key.
static void appendWrittenSplit(const std::vector<AxisList> &only,
                               std::vector<int64_t> &key) {
  key.push_back(-2);
  for (const AxisList &axes : only) {
    llvm::append_range(key, axes);
    key.push_back(-1);
  }
}

/// Traces the split decided for `op` (-debug-only=spmd-partition).
[[maybe_unused]] static void
traceSplit(Operation *op, const OpShardingRule &rule, const MeshInfo &mesh,
           const RuleChoice &choice,
           const std::optional<std::vector<AxisList>> &split, bool reused) {
  llvm::dbgs() << "spmd-partition: '" << op->getName() << "' at ";
  llvm::dbgs() << placeOf(op->getLoc());
  llvm::dbgs() << ": ";
  if (!split) {
    llvm::dbgs() << "no valid split of " << choice.numCandidates()
                 << ": computed whole\n";
    return;
  }
  llvm::dbgs() << "split";
  for (unsigned f = 0; f < rule.numFactors(); ++f) {
    llvm::dbgs() << " " << ShardingRule::factorName(f) << "=[";
    llvm::interleaveComma((*split)[f], llvm::dbgs(), [&](auto a) {
      llvm::dbgs() << mesh.mesh.axisName(a);
    });
    llvm::dbgs() << "]";
  }
  if (reused)
    llvm::dbgs() << ", as for the same op and layouts before\n";
  else
    llvm::dbgs() << ", the cheapest of " << choice.numCandidates() << " (cost "
                 << llvm::format("%.1f", choice.chosenCost()) << " bytes)\n";
}

namespace {
/// The local form of an op under its RuleDecision: operands brought to the
/// decided layouts (or read through their producers), halos read, padded
/// iterations kept from adding, inits of partial results reset, and the op
/// rebuilt on them.
class RuleRewrite {
public:
  RuleRewrite(Partitioner &p, Operation *op, const OpShardingRule &rule,
              const MeshInfo &mesh, ArrayRef<RuleTensor> tensors,
              const RuleDecision &decision, const RuleChoice &choice,
              std::optional<Reduction> combiner)
      : p(p), b(p.builder()), op(op), loc(op->getLoc()), rule(rule), mesh(mesh),
        tensors(tensors), decision(decision), split(*decision.split),
        choice(choice), combiner(combiner), readThrough(op->getNumOperands()),
        offsets(rule.numFactors()) {
    assert(tensors.size() == rule.numTensors() &&
           decision.layouts.size() == tensors.size() &&
           split.size() == rule.numFactors() &&
           "a decision lays out every tensor and splits every factor");
  }

  LogicalResult run();

private:
  LogicalResult bringOperands();
  void readHalos();
  void boundPaddedIterations();
  LogicalResult maskPaddedOperand(unsigned t);
  AxisList partialAxes() const;
  void resetPartialInits();
  LogicalResult rebuild();
  void localResults(const std::optional<CapturedReads> &reads,
                    SmallVectorImpl<Type> &types,
                    std::vector<ShardState> &layouts) const;
  LogicalResult mapByValue(const std::optional<CapturedReads> &reads,
                           IRMapping &mapping);
  Value loopOffset(unsigned f);
  void setResults(Operation *local, ArrayRef<ShardState> layouts);

  Partitioner &p;
  OpBuilder &b;
  Operation *op;
  Location loc;
  const OpShardingRule &rule;
  const MeshInfo &mesh;
  ArrayRef<RuleTensor> tensors;
  const RuleDecision &decision;
  const std::vector<AxisList> &split;
  const RuleChoice &choice;
  std::optional<Reduction> combiner;

  /// The local operands, by position.
  SmallVector<Value> operands;
  /// Operands made from their producers' operands.
  llvm::SmallBitVector readThrough;
  /// Split reduction factors with padded shards.
  SmallVector<unsigned> paddedFactors;
  /// Per padded factor, this device's count of real iterations, for the
  /// local op to skip the rest (cleared when the op masks them instead).
  SmallVector<std::pair<unsigned, Value>> skipped;
  /// Per factor, this device's offset along it, made once when asked.
  SmallVector<Value> offsets;
};
} // namespace

LogicalResult RuleRewrite::run() {
  if (failed(bringOperands()))
    return failure();
  readHalos();
  boundPaddedIterations();
  // Padded iterations must add nothing: their inputs are masked with the
  // identity where the op allows, else the local op skips them.
  std::optional<SmallVector<unsigned>> masked;
  if (!skipped.empty())
    if (auto sharding = llvm::dyn_cast<ShardingOpInterface>(op))
      masked = sharding.getIdentityPaddedOperands(paddedFactors);
  if (masked) {
    for (unsigned t : *masked)
      if (failed(maskPaddedOperand(t)))
        return failure();
    skipped.clear();
  }
  resetPartialInits();
  return rebuild();
}

/// Operands in the chosen layouts (or made from their producers' operands).
LogicalResult RuleRewrite::bringOperands() {
  for (auto [t, operand] : llvm::enumerate(op->getOperands())) {
    if (!tensors[t].type) {
      operands.push_back(p.current(operand));
      continue;
    }
    const ShardState &state = decision.layouts[t];
    if (decision.readsThrough.test(t)) {
      const ReadThrough &through = *tensors[t].through;
      FailureOr<Value> source = p.get(op, through.source, state);
      if (failed(source))
        return failure();
      operands.push_back(emitReadThrough(b, loc, *source, through,
                                         tensors[t].type, state, choice, split,
                                         mesh));
      readThrough.set(t);
      continue;
    }
    FailureOr<Value> local = p.get(op, operand, state);
    if (failed(local))
      return failure();
    operands.push_back(*local);
  }
  return success();
}

/// Windows over split dimensions read their halos.
void RuleRewrite::readHalos() {
  for (const WindowedDim &window : choice.windowed()) {
    const AxisList &axes = split[window.factor];
    if (axes.empty() || readThrough.test(window.operand))
      continue;
    RankedTensorType type = tensors[window.operand].type;
    operands[window.operand] = emitHaloWindow(
        b, loc, operands[window.operand], window,
        choice.chosenHalo(window, type.getDimSize(window.dim), split), mesh,
        axes);
  }
}

/// Finds the split reduction factors with uneven shards, and the count of
/// real iterations of each on this device.
void RuleRewrite::boundPaddedIterations() {
  for (unsigned f = 0; f < rule.numFactors(); ++f) {
    const AxisList &axes = split[f];
    if (rule.factorKinds[f] != FactorKind::Reduction || axes.empty())
      continue;
    int64_t n = mesh.mesh.groupSize(axes);
    if (rule.factorSizes[f] % n == 0)
      continue;
    paddedFactors.push_back(f);
    skipped.push_back(
        {f, validCount(b, loc, mesh, axes, rule.factorSizes[f],
                       llvm::divideCeil(rule.factorSizes[f], n))});
  }
}

/// Masks operand `t` with the combiner's identity past each padded
/// factor's real iterations, as the op's sharding model asks.
LogicalResult RuleRewrite::maskPaddedOperand(unsigned t) {
  for (auto [f, bound] : skipped) {
    bool operand = t < op->getNumOperands() && tensors[t].type;
    auto dims = operand ? ArrayRef(rule.tensors[t]) : ArrayRef<DimFactors>();
    auto dim = llvm::find_if(dims, [&, f = f](const auto &factors) {
      return factors.size() == 1 && factors[0] == f;
    });
    if (dim == dims.end())
      return op->emitError()
             << "the sharding model of '" << op->getName() << "' pads operand "
             << t << " with the identity, which has no dimension of factor "
             << ShardingRule::factorName(f);
    operands[t] =
        maskOutside(b, loc, operands[t], dim - dims.begin(),
                    arith::ConstantIndexOp::create(b, loc, 0), bound,
                    identityOf(b, *combiner, tensors[t].type.getElementType()));
  }
  return success();
}

/// The axes the split reduction factors leave the results pending over.
AxisList RuleRewrite::partialAxes() const {
  AxisList axes;
  for (unsigned f = 0; f < rule.numFactors(); ++f)
    if (rule.factorKinds[f] == FactorKind::Reduction)
      axes.append(split[f].begin(), split[f].end());
  return axes;
}

/// Devices other than the first of their partial group start the op's
/// inits from the identity, unless every device may start from the init.
void RuleRewrite::resetPartialInits() {
  auto dps = llvm::dyn_cast<DestinationStyleOpInterface>(op);
  AxisList partial = partialAxes();
  if (partial.empty() || !dps)
    return;
  for (OpOperand &init : dps.getDpsInitsMutable()) {
    unsigned t = init.getOperandNumber();
    Type element = tensors[t].type.getElementType();
    if (everyDeviceMayAdd(init.get(), *combiner))
      continue;
    TypedAttr identity = identityOf(b, *combiner, element);
    operands[t] = keepOnOne(b, loc, operands[t], mesh, partial, identity);
  }
}

/// The local op built on the operands, its results recorded.
LogicalResult RuleRewrite::rebuild() {
  // Tables a linalg body reads (embedding lookups) are partitioned with it.
  std::optional<CapturedReads> reads;
  if (auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op)) {
    FailureOr<CapturedReads> planned =
        planCapturedReads(linalgOp, p, mesh, split, rule.factorSizes);
    if (failed(planned))
      return failure();
    reads = std::move(*planned);
  }
  SmallVector<Type> resultTypes;
  std::vector<ShardState> produced;
  localResults(reads, resultTypes, produced);
  IRMapping mapping;
  if (failed(mapByValue(reads, mapping)))
    return failure();
  // Named: LocalRebuild keeps only a reference to it.
  auto offsetOf = [&](unsigned f) { return loopOffset(f); };
  LocalRebuild rebuild(op, b, operands, mapping, resultTypes, &rule, split,
                       skipped, offsetOf);
  Operation *local = p.buildLocal(rebuild);
  if (!local)
    return failure();
  assert(local->getNumResults() == op->getNumResults() &&
         "the local op has a result per global result");
  if (reads)
    rewriteCapturedReads(b, llvm::cast<linalg::LinalgOp>(local), *reads, mesh);
  setResults(local, produced);
  return success();
}

/// The local type and layout of each result: the decided ones, pending
/// sums over the captured reads' axes too.
void RuleRewrite::localResults(const std::optional<CapturedReads> &reads,
                               SmallVectorImpl<Type> &types,
                               std::vector<ShardState> &layouts) const {
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    unsigned t = op->getNumOperands() + i;
    if (!tensors[t].type) {
      types.push_back(result.getType());
      layouts.emplace_back();
      continue;
    }
    layouts.push_back(decision.layouts[t]);
    if (!reads || reads->pendingAxes.empty()) {
      types.push_back(decision.localTypes[t]);
      continue;
    }
    layouts.back().partial.append(reads->pendingAxes);
    layouts.back().reduction = Reduction::Sum;
    types.push_back(localType(tensors[t].type, mesh, layouts.back()));
  }
}

/// Tensor operands go by position; scalars, and what the regions read
/// (tables for the captured reads, whole tensors otherwise), by value.
LogicalResult RuleRewrite::mapByValue(const std::optional<CapturedReads> &reads,
                                      IRMapping &mapping) {
  for (auto [global, local] : llvm::zip_equal(op->getOperands(), operands))
    if (!llvm::isa<TensorType>(global.getType()))
      mapping.map(global, local);
  if (reads)
    for (const CapturedReads::Table &table : reads->tables)
      mapping.map(table.global, table.local);
  return p.mapCaptured(op, mapping);
}

/// Loop positions in the local op are global: this device's offset along
/// split factor `f`, made once; null for a factor not split.
Value RuleRewrite::loopOffset(unsigned f) {
  if (f >= offsets.size() || split[f].empty())
    return {};
  if (!offsets[f])
    offsets[f] = shardOffset(
        b, loc, mesh, split[f],
        llvm::divideCeil(rule.factorSizes[f], mesh.mesh.groupSize(split[f])));
  return offsets[f];
}

void RuleRewrite::setResults(Operation *local, ArrayRef<ShardState> layouts) {
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    if (tensors[op->getNumOperands() + i].type)
      p.set(result, {local->getResult(i), &mesh, layouts[i]});
    else
      p.mapScalar(result, local->getResult(i));
  }
}

LogicalResult Partitioner::partitionByRule(Operation *op) {
  std::optional<OpShardingRule> rule = getShardingRule(op);
  if (!rule)
    return partitionReplicated(op);
  if (failed(verifyShardingRule(op, *rule)))
    return failure();
  SmallVector<RuleTensor, 4> tensors;
  FailureOr<const MeshInfo *> found = collectRuleTensors(*this, op, tensors);
  if (failed(found))
    return failure();
  if (!*found)
    return partitionReplicated(op);
  const MeshInfo &mesh = **found;
  for (auto [t, tensor] : llvm::enumerate(tensors))
    if (tensor.type && !tensor.isResult)
      tensor.through =
          producerRead(*this, op, tensor.global, t, rule->windows, &mesh);

  // Only split reduction factors leave results pending a reduction.
  std::optional<Reduction> combiner;
  if (llvm::is_contained(rule->factorKinds, FactorKind::Reduction))
    combiner = getSplitReductionKind(op);
  // A plan's split (spmd-auto-shard's) is the one it was costed with.
  FailureOr<std::optional<std::vector<AxisList>>> written =
      readFactorSplit(op, mesh.mesh, rule->numFactors());
  if (failed(written))
    return failure();
  const std::vector<AxisList> *only = *written ? &**written : nullptr;
  RuleChoice choice(op, *rule, mesh, tensors, combiner, planCache);
  // A decision that did not ask the op holds for every op with the same key.
  choiceKey(op, *rule, mesh, tensors, combiner, choiceScratch);
  if (only)
    appendWrittenSplit(*only, choiceScratch);
  auto remembered = ruleDecisions.find(choiceScratch);
  bool reused = remembered != ruleDecisions.end();
  RuleDecision fresh;
  if (!reused)
    fresh = decide(op, choice, only, tensors, mesh);
  const RuleDecision &decision =
      reused ? remembered->second
      : choice.askedTheOp()
          ? fresh
          : ruleDecisions.try_emplace(choiceScratch, std::move(fresh))
                .first->second;
  LLVM_DEBUG(traceSplit(op, *rule, mesh, choice, decision.split, reused));
  if (!decision.split)
    return partitionReplicated(op);
  return RuleRewrite(*this, op, *rule, mesh, tensors, decision, choice,
                     combiner)
      .run();
}
