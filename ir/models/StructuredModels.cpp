//===- StructuredModels.cpp - linalg structured ops and softmax -----------===//
//
// The rule is derived from indexing maps, so every named op and
// linalg.generic is covered at once: one factor per loop, parallel or
// reduction as its iterator. Operand dimensions indexed by `dN` are factor
// N; constant 0 (a broadcast unit dimension) is no factor. Sums such as
// `d1 * 2 + d4 + 1` index an input by an output loop (d1, the spatial loop)
// shifted by loops of the input alone (d4, a window): those loops become
// permutation factors, and the dimension a window the partitioner can split
// with halos. Any other expression makes its loops need-replication.
//
// A split reduction loop leaves each result pending with the kind of its
// combiner (`acc = addf/maxnumf/minsi/... (x, acc)`). Locally, positions
// from `linalg.index` are made global and padded iterations skipped.
//
//===----------------------------------------------------------------------===//

#include "ir/BodyCombiner.h"
#include "ir/Namespaces.h"
#include "ir/ShardingModels.h"
#include "ir/SpmdDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"

#include <mutex>

using namespace mlir;
using namespace mlir::spmd;
using Reduction = ReductionKind;

/// (loop, coefficient) terms and the constant of a sum of scaled loops.
struct LinearTerms {
  SmallVector<std::pair<unsigned, int64_t>> terms;
  int64_t constant = 0;
};

static std::optional<LinearTerms> linearTerms(AffineExpr expr) {
  LinearTerms result;
  std::function<bool(AffineExpr, int64_t)> walk = [&](AffineExpr e,
                                                      int64_t scale) {
    if (auto dim = llvm::dyn_cast<AffineDimExpr>(e)) {
      result.terms.push_back({dim.getPosition(), scale});
      return true;
    }
    if (auto c = llvm::dyn_cast<AffineConstantExpr>(e)) {
      result.constant += scale * c.getValue();
      return true;
    }
    auto binary = llvm::dyn_cast<AffineBinaryOpExpr>(e);
    if (!binary)
      return false;
    if (binary.getKind() == AffineExprKind::Add)
      return walk(binary.getLHS(), scale) && walk(binary.getRHS(), scale);
    if (binary.getKind() == AffineExprKind::Mul)
      if (auto c = llvm::dyn_cast<AffineConstantExpr>(binary.getRHS()))
        return walk(binary.getLHS(), scale * c.getValue());
    return false;
  };
  if (!walk(expr, 1))
    return std::nullopt;
  return result;
}

static std::optional<OpShardingRule> structuredRule(linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;

  OpShardingRule rule;
  for (auto [size, iterator] :
       llvm::zip_equal(ranges, op.getIteratorTypesArray()))
    rule.addFactor(size, iterator == utils::IteratorType::reduction
                             ? FactorKind::Reduction
                             : FactorKind::Parallel);

  // Loops that index some init (output) are the ones a window follows.
  llvm::SmallBitVector outputLoops(ranges.size());
  for (OpOperand &init : op.getDpsInitsMutable())
    for (AffineExpr e : op.getMatchingIndexingMap(&init).getResults())
      if (auto dim = llvm::dyn_cast<AffineDimExpr>(e))
        outputLoops.set(dim.getPosition());

  auto replicate = [&](AffineExpr e) {
    e.walk([&](AffineExpr sub) {
      if (auto dim = llvm::dyn_cast<AffineDimExpr>(sub))
        rule.factorKinds[dim.getPosition()] = FactorKind::NeedReplication;
    });
  };
  auto tensorOf = [&](OpOperand &operand) {
    TensorFactors dims;
    bool isInput = op.isDpsInput(&operand);
    for (auto [d, e] :
         llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults())) {
      if (auto dim = llvm::dyn_cast<AffineDimExpr>(e)) {
        dims.push_back({dim.getPosition()});
        continue;
      }
      dims.emplace_back();
      if (llvm::isa<AffineConstantExpr>(e))
        continue;
      // A window: an input indexed by one output loop with a positive
      // stride, shifted by non-negative multiples of other loops and a
      // constant. Anything else (a reversed read `9 - d0`, two output
      // loops) needs every element along its loops.
      std::optional<LinearTerms> sum = linearTerms(e);
      std::optional<std::pair<unsigned, int64_t>> spatial;
      int64_t extent = 0;
      bool window = sum && isInput;
      for (auto [loop, coef] : sum ? sum->terms : decltype(sum->terms)()) {
        if (outputLoops.test(loop)) {
          window &= !spatial && coef > 0;
          spatial = {loop, coef};
        } else {
          window &= coef >= 0;
          extent += coef * (ranges[loop] - 1);
        }
      }
      if (!window || !spatial) {
        replicate(e);
        continue;
      }
      // Sharding the spatial loop, or the loops that shift it, needs
      // neighbouring elements of this operand (halos).
      for (auto [loop, coef] : sum->terms)
        if (rule.factorKinds[loop] != FactorKind::NeedReplication)
          rule.factorKinds[loop] = FactorKind::Permutation;
      dims.back().push_back(spatial->first);
      rule.windows.push_back({operand.getOperandNumber(), unsigned(d),
                              spatial->first, spatial->second, extent,
                              sum->constant});
    }
    return dims;
  };

  for (OpOperand &operand : op->getOpOperands())
    rule.addTensor(tensorOf(operand));
  for (OpOperand &init : op.getDpsInitsMutable())
    if (llvm::isa<RankedTensorType>(init.get().getType()))
      rule.addTensor(tensorOf(init));
  return rule;
}

/// What each result of `op` adds to its accumulator per iteration: the
/// operand of the yielded combining op that is not the accumulator. Empty
/// when some result is not `combine(x, acc)` with `acc` used only there.
static SmallVector<Value> contributions(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  SmallVector<Value> values;
  for (OpOperand &yielded : body->getTerminator()->getOpOperands()) {
    BlockArgument acc =
        body->getArgument(op.getNumDpsInputs() + yielded.getOperandNumber());
    Operation *combine = yielded.get().getDefiningOp();
    if (!combinerKind(combine) || !acc.hasOneUse() ||
        acc.getUses().begin()->getOwner() != combine)
      return {};
    values.push_back(combine->getOperand(0) == acc ? combine->getOperand(1)
                                                   : combine->getOperand(0));
  }
  return values;
}

/// The inputs whose padding, set to the combiner's identity, makes padded
/// iterations of `loops` add nothing: when every result adds an input
/// (`acc = combine(x, acc)`) or, for sums, a product of two inputs, and
/// those inputs are indexed by every loop of `loops`.
static std::optional<SmallVector<unsigned>>
maskableInputs(linalg::LinalgOp op, ArrayRef<unsigned> loops) {
  SmallVector<Value> added = contributions(op);
  if (added.empty())
    return std::nullopt;
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
  for (auto [value, yielded] : llvm::zip_equal(
           added, op.getBlock()->getTerminator()->getOperands())) {
    if (addInput(value))
      continue;
    Operation *product = value.getDefiningOp();
    if (combinerKind(yielded.getDefiningOp()) != Reduction::Sum ||
        !llvm::isa_and_nonnull<arith::MulFOp, arith::MulIOp>(product) ||
        !addInput(product->getOperand(0)) || !addInput(product->getOperand(1)))
      return std::nullopt;
  }
  return inputs;
}

/// Makes `linalg.index` in the body of the local op `op` mean the global
/// loop position: the device's offset is added to every index of a split
/// loop.
static void globalizeLoopIndices(linalg::LinalgOp op, LocalRebuild &rebuild) {
  SmallVector<linalg::IndexOp> indices;
  op->walk([&](linalg::IndexOp index) {
    if (index->getParentOfType<linalg::LinalgOp>() == op)
      indices.push_back(index);
  });
  OpBuilder &b = rebuild.builder();
  OpBuilder::InsertionGuard guard(b);
  for (linalg::IndexOp index : indices) {
    // Offsets are made before the op, where its body can use them.
    b.setInsertionPoint(op);
    Value offset = rebuild.loopOffset(index.getDim());
    if (!offset)
      continue;
    b.setInsertionPointAfter(index);
    auto global = arith::AddIOp::create(b, index.getLoc(), index, offset);
    index.getResult().replaceAllUsesExcept(global, global);
  }
}

/// Named ops have no indexing maps or body to edit: gives `op` them.
static FailureOr<linalg::GenericOp> generic(OpBuilder &b, linalg::LinalgOp op) {
  if (auto generic = llvm::dyn_cast<linalg::GenericOp>(op.getOperation()))
    return generic;
  IRRewriter rewriter(b);
  rewriter.setInsertionPoint(op);
  return linalg::generalizeNamedOp(rewriter, op);
}

/// The partitioner cut each split window out of its input with the halos,
/// starting where this device's first output reads: the local op reads it
/// from its start, without the index's constant.
static FailureOr<linalg::LinalgOp> readWindowsFromStart(linalg::LinalgOp op,
                                                        LocalRebuild &rebuild) {
  const OpShardingRule *rule = rebuild.getRule();
  auto shifted = [&](const WindowedDim &window) {
    return window.offset != 0 && rebuild.isSplit(window.factor);
  };
  if (!rule || llvm::none_of(rule->windows, shifted))
    return op;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (const WindowedDim &window : rule->windows) {
    if (!shifted(window))
      continue;
    AffineMap &map = maps[window.operand];
    SmallVector<AffineExpr> results(map.getResults());
    results[window.dim] = results[window.dim] - window.offset;
    map = AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                         op.getContext());
  }
  FailureOr<linalg::GenericOp> local = generic(rebuild.builder(), op);
  if (failed(local))
    return failure();
  local->setIndexingMapsAttr(rebuild.builder().getAffineMapArrayAttr(maps));
  return llvm::cast<linalg::LinalgOp>(local->getOperation());
}

/// Makes every iteration of the local op `op` whose loop `l` position is
/// not below `bound` (per (l, bound) pair) leave its outputs unchanged,
/// whatever the body computes. Named ops are generalized first; returns
/// the op that replaces `op`, or failure if it cannot be generalized.
static FailureOr<linalg::LinalgOp>
skipIterationsPast(OpBuilder &b, linalg::LinalgOp op,
                   ArrayRef<std::pair<unsigned, Value>> bounds) {
  if (bounds.empty())
    return op;
  FailureOr<linalg::GenericOp> edited = generic(b, op);
  if (failed(edited))
    return failure();
  op = llvm::cast<linalg::LinalgOp>(edited->getOperation());
  Block *body = op.getBlock();
  Operation *yield = body->getTerminator();
  Location loc = yield->getLoc();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(yield);
  Value inside;
  for (auto [loop, bound] : bounds) {
    Value position = linalg::IndexOp::create(b, loc, loop);
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        position, bound);
    inside = inside ? arith::AndIOp::create(b, loc, inside, below) : below;
  }
  for (OpOperand &yielded : yield->getOpOperands()) {
    Value unchanged =
        body->getArgument(op.getNumDpsInputs() + yielded.getOperandNumber());
    yielded.set(
        arith::SelectOp::create(b, loc, inside, yielded.get(), unchanged));
  }
  return op;
}

namespace {
/// Rules of one op kind by what they are derived from: the indexing maps
/// and iterators follow from the properties (and, for named ops, the types
/// of the operands). Models of repeated layers then compute each rule once;
/// building indexing maps dominated propagation and partitioning time.
/// Properties are hashed and compared in place (turning them into an
/// attribute per query cost more than the rest of the lookup).
class StructuredRuleCache {
public:
  /// The cache of `op`'s context, if the spmd dialect is loaded there.
  static StructuredRuleCache *of(Operation *op) {
    auto *dialect = op->getContext()->getLoadedDialect<SpmdDialect>();
    if (!dialect)
      return nullptr;
    // Models may be asked from several threads of one context at once.
    static std::mutex creation;
    std::lock_guard<std::mutex> lock(creation);
    std::shared_ptr<void> &slot = dialect->modelCache();
    if (!slot)
      slot = std::make_shared<StructuredRuleCache>();
    return static_cast<StructuredRuleCache *>(slot.get());
  }

  std::optional<OpShardingRule> get(Operation *op) {
    unsigned hash = llvm::hash_combine(
        op->getName().getAsOpaquePointer(), op->hashProperties(),
        llvm::hash_combine_range(op->getOperandTypes().begin(),
                                 op->getOperandTypes().end()),
        llvm::hash_combine_range(op->getResultTypes().begin(),
                                 op->getResultTypes().end()));
    std::lock_guard<std::mutex> lock(mutex);
    SmallVector<std::unique_ptr<Entry>, 1> &bucket = rules[hash];
    for (const std::unique_ptr<Entry> &entry : bucket)
      if (entry->matches(op))
        return entry->rule;
    bucket.push_back(std::make_unique<Entry>(op));
    return bucket.back()->rule;
  }

private:
  /// One op kind, properties and types, with its rule.
  struct Entry {
    explicit Entry(Operation *op)
        : name(op->getName()), types(op->getOperandTypes()),
          rule(structuredRule(llvm::cast<linalg::LinalgOp>(op))) {
      llvm::append_range(types, op->getResultTypes());
      if (int size = name.getOpPropertyByteSize()) {
        properties.reset(new std::max_align_t[llvm::divideCeil(
            size, sizeof(std::max_align_t))]);
        name.initOpProperties(storage(), op->getPropertiesStorage());
      }
    }
    ~Entry() {
      if (properties)
        name.destroyOpProperties(storage());
    }
    OpaqueProperties storage() const { return properties.get(); }
    bool matches(Operation *op) const {
      if (op->getName() != name ||
          op->getNumOperands() + op->getNumResults() != types.size() ||
          (properties &&
           !name.compareOpProperties(storage(), op->getPropertiesStorage())))
        return false;
      ArrayRef<Type> all(types);
      return llvm::equal(op->getOperandTypes(),
                         all.take_front(op->getNumOperands())) &&
             llvm::equal(op->getResultTypes(),
                         all.drop_front(op->getNumOperands()));
    }

    OperationName name;
    std::unique_ptr<std::max_align_t[]> properties;
    SmallVector<Type, 4> types;
    std::optional<OpShardingRule> rule;
  };
  std::mutex mutex;
  DenseMap<unsigned, SmallVector<std::unique_ptr<Entry>, 1>> rules;
};

template <typename OpTy>
struct StructuredModel
    : ShardingOpInterface::ExternalModel<StructuredModel<OpTy>, OpTy> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    if (StructuredRuleCache *rules = StructuredRuleCache::of(op))
      return rules->get(op);
    return structuredRule(llvm::cast<linalg::LinalgOp>(op));
  }

  std::optional<Reduction> getReductionKind(Operation *op,
                                            unsigned result) const {
    auto linalgOp = llvm::cast<linalg::LinalgOp>(op);
    if (contributions(linalgOp).empty())
      return std::nullopt;
    Value yielded = linalgOp.getBlock()->getTerminator()->getOperand(result);
    return combinerKind(yielded.getDefiningOp());
  }

  std::optional<SmallVector<unsigned>>
  getIdentityPaddedOperands(Operation *op, ArrayRef<unsigned> factors) const {
    return maskableInputs(llvm::cast<linalg::LinalgOp>(op), factors);
  }

  /// The body leaves padded iterations without effect (a select).
  bool skipsPaddedIterations(Operation *) const { return true; }

  Operation *buildLocal(Operation *op, LocalRebuild &rebuild) const {
    auto local = llvm::cast<linalg::LinalgOp>(cloneLocal(rebuild));
    globalizeLoopIndices(local, rebuild);
    FailureOr<linalg::LinalgOp> edited = readWindowsFromStart(local, rebuild);
    if (succeeded(edited))
      edited = skipIterationsPast(rebuild.builder(), *edited,
                                  rebuild.skippedIterations());
    if (succeeded(edited))
      return *edited;
    op->emitError("cannot partition this op over the split chosen: it has "
                  "no generic form");
    return nullptr;
  }
};

/// linalg.softmax: every dimension but the normalized one is parallel.
struct SoftmaxModel
    : ShardingOpInterface::ExternalModel<SoftmaxModel, linalg::SoftmaxOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    auto softmax = llvm::cast<linalg::SoftmaxOp>(op);
    OpShardingRule rule;
    TensorFactors dims =
        rules::dimsExcept(rule, softmax.getInputOperandType().getShape(),
                          softmax.getDimension(), FactorKind::NeedReplication);
    for (unsigned t = 0; t < 3; ++t) // input, init, result
      rule.addTensor(dims);
    return rule;
  }
};
} // namespace

template <typename... OpTys>
static void attachStructured(MLIRContext *context) {
  (OpTys::template attachInterface<StructuredModel<OpTys>>(*context), ...);
}

void mlir::spmd::registerStructuredModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    attachStructured<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(context);
    linalg::SoftmaxOp::attachInterface<SoftmaxModel>(*context);
  });
}
