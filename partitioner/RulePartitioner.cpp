//===- RulePartitioner.cpp - Partitioning through factor rules ------------===//
//
// For an op with a factor rule (ir/ShardingRules.h): every factor is split
// over some mesh axes (possibly none). The choice is made by cost among the
// splits the op's tensors suggest (its annotated results, its operands'
// current layouts): bytes moved to bring operands into the layouts the
// choice implies, plus bytes to bring results to their annotated layouts,
// plus local compute at kBytesPerFlop. Split reduction factors leave the
// results partial (pending reductions), reduced by whoever needs them.
//
//===----------------------------------------------------------------------===//

#include "ir/ShardingRules.h"
#include "partitioner/CapturedReads.h"
#include "partitioner/Halo.h"
#include "partitioner/OpPartitioners.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;
using namespace mlir::spmd;
using ::spmd::AxisList;
using ::spmd::FactorKind;
using Reduction = ::spmd::ReductionKind;
using ::spmd::ShardState;

/// Local compute is charged as this many bytes of communication per
/// iteration (one multiply-add): communicating a byte costs about as much as
/// 16 multiply-adds on the CPUs and interconnects we target. It only decides
/// between plans that move the same bytes but replicate different work.
static constexpr double kBytesPerIteration = 1.0 / 16;

/// The reduction kind of a combining op, if it is one.
static std::optional<Reduction> reductionOf(Operation *op) {
  if (llvm::isa_and_nonnull<arith::AddFOp, arith::AddIOp>(op))
    return Reduction::Sum;
  if (llvm::isa_and_nonnull<arith::MaximumFOp, arith::MaxNumFOp,
                            arith::MaxSIOp>(op))
    return Reduction::Max;
  if (llvm::isa_and_nonnull<arith::MinimumFOp, arith::MinNumFOp,
                            arith::MinSIOp>(op))
    return Reduction::Min;
  return std::nullopt;
}

/// What each result of `op` adds to its accumulator per iteration: the
/// operand of the yielded combining op that is not the accumulator. Null
/// when a result is not `combine(x, acc)` with `acc` used only there.
static SmallVector<Value> contributions(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  SmallVector<Value> values;
  for (OpOperand &yielded : body->getTerminator()->getOpOperands()) {
    BlockArgument acc =
        body->getArgument(op.getNumDpsInputs() + yielded.getOperandNumber());
    Operation *combine = yielded.get().getDefiningOp();
    if (!reductionOf(combine) || !acc.hasOneUse() ||
        acc.getUses().begin()->getOwner() != combine)
      return {};
    values.push_back(combine->getOperand(0) == acc ? combine->getOperand(1)
                                                   : combine->getOperand(0));
  }
  return values;
}

/// The reduction an op's reduction factors combine with, if known.
static std::optional<Reduction> combinerOf(Operation *op) {
  auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return Reduction::Sum; // tosa.matmul sums.
  if (contributions(linalgOp).empty())
    return std::nullopt;
  std::optional<Reduction> kind;
  for (Value yielded : linalgOp.getBlock()->getTerminator()->getOperands()) {
    std::optional<Reduction> k = reductionOf(yielded.getDefiningOp());
    if (kind && *kind != *k)
      return std::nullopt;
    kind = k;
  }
  return kind;
}

/// The inputs whose padding, set to the combiner's identity, makes padded
/// iterations of `loops` add nothing: when every result adds an input
/// (`acc = combine(x, acc)`) or, for sums, a product of two inputs, and
/// those inputs are indexed by every loop of `loops`. Nullopt otherwise:
/// the body must then skip those iterations itself.
static std::optional<SmallVector<unsigned>>
maskableInputs(linalg::LinalgOp op, Reduction kind, ArrayRef<unsigned> loops) {
  SmallVector<unsigned> inputs;
  auto addInput = [&](Value v) {
    auto arg = llvm::dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != op.getBlock() ||
        arg.getArgNumber() >= op.getNumDpsInputs())
      return false;
    AffineMap map =
        op.getMatchingIndexingMap(op.getDpsInputOperand(arg.getArgNumber()));
    for (unsigned loop : loops)
      if (!llvm::is_contained(map.getResults(),
                              getAffineDimExpr(loop, op.getContext())))
        return false;
    if (!llvm::is_contained(inputs, arg.getArgNumber()))
      inputs.push_back(arg.getArgNumber());
    return true;
  };
  for (Value added : contributions(op)) {
    if (addInput(added))
      continue;
    Operation *product = added.getDefiningOp();
    if (kind != Reduction::Sum ||
        !llvm::isa_and_nonnull<arith::MulFOp, arith::MulIOp>(product) ||
        !addInput(product->getOperand(0)) || !addInput(product->getOperand(1)))
      return std::nullopt;
  }
  return inputs;
}

namespace {
/// One tensor of the rule: its value, its global type, and where it is.
struct RuleTensor {
  Value global;
  RankedTensorType type;
  bool isResult;
  bool isInit;          // a DPS init operand
  ShardState current;   // operands: current layout
  ShardState annotated; // results: the layout propagation chose
};

class RuleChoice {
public:
  RuleChoice(Operation *op, const ::spmd::ShardingRule &rule,
             const MeshInfo &mesh, std::vector<RuleTensor> &tensors,
             std::optional<Reduction> combiner, ::spmd::ReshardPlanCache &plans)
      : op(op), rule(rule), mesh(mesh), tensors(tensors), combiner(combiner),
        plans(plans), windows(windowedDims(op)) {}

  /// Input dimensions read through windows (convolutions, pooling).
  llvm::ArrayRef<WindowedDim> windowed() const { return windows; }
  /// The halo of `window` under `split`, or nullopt if it cannot be done.
  std::optional<HaloShape> halo(const WindowedDim &window,
                                const std::vector<AxisList> &split) const {
    return haloShape(window, rule.factorSizes[window.factor],
                     tensors[window.operand].type.getDimSize(window.dim),
                     mesh.mesh.groupSize(split[window.factor]));
  }

  /// The cheapest valid split of every factor.
  std::optional<std::vector<AxisList>> choose();

  /// The layout of tensor `t` under `split`, or nullopt if some factor's
  /// axes cannot be expressed on its dimensions.
  std::optional<ShardState> layout(unsigned t,
                                   const std::vector<AxisList> &split) const;

private:
  std::optional<double> cost(const std::vector<AxisList> &split) const;
  std::vector<std::vector<AxisList>> candidates() const;

  Operation *op;
  const ::spmd::ShardingRule &rule;
  const MeshInfo &mesh;
  std::vector<RuleTensor> &tensors;
  std::optional<Reduction> combiner;
  ::spmd::ReshardPlanCache &plans;
  SmallVector<WindowedDim> windows;
};
} // namespace

std::optional<ShardState>
RuleChoice::layout(unsigned t, const std::vector<AxisList> &split) const {
  ShardState state;
  for (const ::spmd::DimFactors &factors : rule.tensors[t]) {
    AxisList axes =
        ::spmd::composeDim(factors, split, rule.factorSizes, mesh.mesh);
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
      ::spmd::projectDim(state.dims[d], factors, rule.factorSizes, mesh.mesh,
                         projected);
    for (unsigned f = 0; f < rule.numFactors(); ++f)
      if (!projected[f].empty() &&
          !llvm::is_contained(options[f], projected[f]))
        options[f].push_back(projected[f]);
  };
  for (auto [t, tensor] : llvm::enumerate(tensors))
    if (tensor.type)
      suggest(t, tensor.isResult ? tensor.annotated : tensor.current);
  // Factors that must stay whole; a permutation factor may be split when it
  // is the spatial loop of input windows (halos then bring the neighbours'
  // elements).
  for (unsigned f = 0; f < rule.numFactors(); ++f) {
    FactorKind kind = rule.factorKinds[f];
    bool spatial = llvm::any_of(
        windows, [&](const WindowedDim &w) { return w.factor == f; });
    if (kind == FactorKind::NeedReplication ||
        (kind == FactorKind::Permutation && !spatial) ||
        (kind == FactorKind::Reduction && !combiner))
      options[f] = {AxisList()};
  }
  return options;
}

std::optional<double>
RuleChoice::cost(const std::vector<AxisList> &split) const {
  double total = 0;
  for (auto [t, tensor] : llvm::enumerate(tensors)) {
    if (!tensor.type)
      continue;
    std::optional<ShardState> state = layout(t, split);
    if (!state)
      return std::nullopt;
    const ShardState &from = tensor.isResult ? *state : tensor.current;
    const ShardState &to = tensor.isResult ? tensor.annotated : *state;
    const ::spmd::ReshardPlan *plan =
        plans.plan(mesh.mesh, tensor.type.getShape(),
                   elementBytes(tensor.type.getElementType()), from, to);
    if (!plan)
      return std::nullopt;
    total += plan->cost;
  }
  // Halos: the rows sent to each neighbour.
  for (const WindowedDim &window : windows) {
    if (split[window.factor].empty())
      continue;
    std::optional<HaloShape> shape = halo(window, split);
    if (!shape)
      return std::nullopt;
    const RuleTensor &input = tensors[window.operand];
    std::vector<int64_t> local = ::spmd::localShape(
        mesh.mesh, input.type.getShape(), *layout(window.operand, split));
    double rowBytes = double(::spmd::product(local)) / local[window.dim] *
                      elementBytes(input.type.getElementType());
    total += (shape->left + shape->right) * rowBytes;
  }
  double iterations = 1;
  for (unsigned f = 0; f < rule.numFactors(); ++f)
    iterations *=
        llvm::divideCeil(rule.factorSizes[f], mesh.mesh.groupSize(split[f]));
  return total + kBytesPerIteration * iterations;
}

std::optional<std::vector<AxisList>> RuleChoice::choose() {
  std::vector<std::vector<AxisList>> options = candidates();
  // Too many combinations: keep the first suggestion of each factor.
  double combinations = 1;
  for (const auto &o : options)
    combinations *= o.size();
  if (combinations > 4096)
    for (auto &o : options)
      o.resize(std::min<size_t>(o.size(), 2));

  std::optional<std::vector<AxisList>> best;
  double bestCost = 0;
  std::vector<AxisList> split(rule.numFactors());
  SmallVector<bool, 8> used(mesh.mesh.rank(), false);
  std::function<void(unsigned)> search = [&](unsigned f) {
    if (f == rule.numFactors()) {
      std::optional<double> c = cost(split);
      if (c && (!best || *c < bestCost)) {
        best = split;
        bestCost = *c;
      }
      return;
    }
    for (const AxisList &axes : options[f]) {
      if (llvm::any_of(axes, [&](::spmd::AxisIndex a) { return used[a]; }))
        continue;
      for (::spmd::AxisIndex a : axes)
        used[a] = true;
      split[f] = axes;
      search(f + 1);
      for (::spmd::AxisIndex a : axes)
        used[a] = false;
    }
  };
  search(0);
  return best;
}

/// Whether `init` is filled with `identity` (then every device may add it).
static bool isFilledWith(Value init, TypedAttr identity) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  Attribute value;
  return matchPattern(fill.getInputs()[0], m_Constant(&value)) &&
         value == identity;
}

LogicalResult mlir::spmd::partitionByRule(Operation *op, Partitioner &p) {
  std::optional<::spmd::ShardingRule> rule =
      ShardingRuleRegistry::get().ruleFor(op);
  if (!rule)
    return partitionReplicated(op, p);

  // The op's mesh: its results' (from propagation), else its operands'.
  const MeshInfo *mesh = nullptr;
  std::vector<RuleTensor> tensors;
  auto dps = llvm::dyn_cast<DestinationStyleOpInterface>(op);
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = llvm::dyn_cast<RankedTensorType>(operand.get().getType());
    RuleTensor tensor{operand.get(), type, false,
                      dps && dps.isDpsInit(&operand)};
    if (type) {
      const LocalValue &local = p.lookup(operand.get());
      tensor.current = local.state;
      mesh = mesh ? mesh : local.mesh;
    }
    tensors.push_back(std::move(tensor));
  }
  for (Value result : op->getResults()) {
    auto type = llvm::dyn_cast<RankedTensorType>(result.getType());
    RuleTensor tensor{result, type, true, false};
    if (type) {
      auto layout = p.annotatedLayout(result);
      if (failed(layout))
        return failure();
      tensor.annotated = layout->second;
      mesh = layout->first;
    }
    tensors.push_back(std::move(tensor));
  }
  if (!mesh)
    return partitionReplicated(op, p);
  for (const RuleTensor &tensor : tensors)
    if (tensor.type && !tensor.isResult && p.lookup(tensor.global).mesh != mesh)
      return op->emitError("operands on different meshes cannot be partitioned "
                           "together");

  std::optional<Reduction> combiner = combinerOf(op);
  RuleChoice choice(op, *rule, *mesh, tensors, combiner, p.plans());
  std::optional<std::vector<AxisList>> split = choice.choose();
  if (!split)
    return partitionReplicated(op, p);

  // Operands in the chosen layouts.
  OpBuilder &b = p.builder();
  Location loc = op->getLoc();
  SmallVector<Value> operands;
  for (auto [t, operand] : llvm::enumerate(op->getOperands())) {
    if (!tensors[t].type) {
      operands.push_back(p.current(operand));
      continue;
    }
    FailureOr<Value> local = p.get(op, operand, *choice.layout(t, *split));
    if (failed(local))
      return failure();
    operands.push_back(*local);
  }

  // Windows over split spatial dimensions read their halos.
  for (const WindowedDim &window : choice.windowed()) {
    const AxisList &axes = (*split)[window.factor];
    if (axes.empty())
      continue;
    operands[window.operand] =
        emitHaloWindow(b, loc, operands[window.operand], window,
                       *choice.halo(window, *split), *mesh, axes);
  }

  // Padded iterations of split reduction factors (uneven shards) must add
  // nothing: their inputs are masked with the identity where the body
  // allows, else the body skips them.
  auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op);
  AxisList partialAxes;
  SmallVector<unsigned> paddedFactors;
  SmallVector<std::pair<unsigned, Value>> bounds;
  for (unsigned f = 0; f < rule->numFactors(); ++f) {
    const AxisList &axes = (*split)[f];
    if (rule->factorKinds[f] != FactorKind::Reduction || axes.empty())
      continue;
    partialAxes.append(axes.begin(), axes.end());
    int64_t n = mesh->mesh.groupSize(axes);
    if (rule->factorSizes[f] % n == 0)
      continue;
    paddedFactors.push_back(f);
    bounds.push_back({f, validCount(b, loc, *mesh, axes, rule->factorSizes[f],
                                    llvm::divideCeil(rule->factorSizes[f], n))});
  }
  std::optional<SmallVector<unsigned>> masked;
  if (!bounds.empty()) {
    if (!linalgOp) {
      masked.emplace();
      for (auto [t, tensor] : llvm::enumerate(tensors))
        if (!tensor.isResult && !tensor.isInit && tensor.type)
          masked->push_back(t);
    } else {
      masked = maskableInputs(linalgOp, *combiner, paddedFactors);
    }
  }
  for (unsigned t : masked ? *masked : SmallVector<unsigned>()) {
    for (auto [f, bound] : bounds) {
      auto dim = llvm::find_if(rule->tensors[t], [&](const auto &factors) {
        return factors.size() == 1 && factors[0] == f;
      });
      if (dim == rule->tensors[t].end())
        continue;
      operands[t] = maskOutside(
          b, loc, operands[t], dim - rule->tensors[t].begin(),
          arith::ConstantIndexOp::create(b, loc, 0), bound,
          identityOf(b, *combiner, tensors[t].type.getElementType()));
    }
  }
  if (masked)
    bounds.clear();

  // Loop positions inside bodies are global.
  SmallVector<Value> loopOffsets;
  if (linalgOp) {
    loopOffsets.resize(rule->numFactors());
    linalgOp->walk([&](linalg::IndexOp index) {
      unsigned f = index.getDim();
      const AxisList &axes = (*split)[f];
      if (axes.empty() || loopOffsets[f] ||
          index->getParentOfType<linalg::LinalgOp>() != linalgOp)
        return;
      loopOffsets[f] = shardOffset(
          b, loc, *mesh, axes,
          llvm::divideCeil(rule->factorSizes[f], mesh->mesh.groupSize(axes)));
    });
  }

  if (!partialAxes.empty() && dps) {
    for (OpOperand &init : dps.getDpsInitsMutable()) {
      unsigned t = init.getOperandNumber();
      Type element = tensors[t].type.getElementType();
      TypedAttr identity = identityOf(b, *combiner, element);
      if (isFilledWith(init.get(), identity))
        continue;
      // Devices other than the first of their partial group start from the
      // identity.
      operands[t] =
          keepOnFirst(b, loc, operands[t], *mesh, partialAxes, identity);
    }
  }

  // Tables the body reads (embedding lookups) are partitioned with it.
  std::optional<CapturedReads> reads;
  if (linalgOp) {
    FailureOr<CapturedReads> planned =
        planCapturedReads(linalgOp, p, *mesh, *split, rule->factorSizes);
    if (failed(planned))
      return failure();
    reads = std::move(*planned);
    for (const CapturedReads::Table &table : reads->tables)
      p.scalars().map(table.global, table.local);
  }

  SmallVector<Type> resultTypes;
  std::vector<ShardState> produced;
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    unsigned t = op->getNumOperands() + i;
    if (!tensors[t].type) {
      resultTypes.push_back(result.getType());
      produced.emplace_back();
      continue;
    }
    produced.push_back(*choice.layout(t, *split));
    if (reads && !reads->pendingAxes.empty()) {
      produced.back().partial.append(reads->pendingAxes);
      produced.back().reduction = Reduction::Sum;
    }
    resultTypes.push_back(
        Partitioner::localType(tensors[t].type, *mesh, produced.back()));
  }
  Operation *local =
      OpPartitionerRegistry::get().materialize(op, p, operands, resultTypes);
  if (reads)
    for (const CapturedReads::Table &table : reads->tables)
      p.scalars().erase(table.global);
  if (!local)
    return failure();
  if (auto localLinalg = llvm::dyn_cast<linalg::LinalgOp>(local)) {
    globalizeLoopIndices(b, localLinalg, loopOffsets);
    if (reads)
      rewriteCapturedReads(b, localLinalg, *reads, *mesh);
    FailureOr<linalg::LinalgOp> skipping =
        skipIterationsPast(b, localLinalg, bounds);
    if (failed(skipping))
      return op->emitError("cannot partition the reduction of this op over "
                           "an uneven split: it has no generic form");
    local = *skipping;
  }
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    if (tensors[op->getNumOperands() + i].type)
      p.set(result, {local->getResult(i), mesh, produced[i]});
    else
      p.scalars().map(result, local->getResult(i));
  }
  return success();
}
