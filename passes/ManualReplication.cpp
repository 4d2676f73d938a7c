//===- ManualReplication.cpp - Region results said to be the same ---------===//
//
// A manual region's out_sharding that leaves a result whole over a manual
// axis says every device along it yields the same value; only the first
// copy is what a run returns. Which manual axes each value of the body may
// differ along follows from the in_shardings, `axis_index` and the
// collectives, through loops and branches (a value chosen by a condition,
// or a trip count, that differs along an axis differs along it too): a
// yield said to be the same along an axis its value may differ along is
// warned about, as shard_map's replication check does. A warning, not an
// error: the analysis cannot see that `x - x` is the same everywhere, and
// `spmd-run --check` compares the copies themselves.
//
//===----------------------------------------------------------------------===//

#include "ir/SpmdDialect.h"
#include "ir/SpmdOps.h"
#include "passes/Import.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace {

/// The manual axes each value of a region's body may differ along, one bit
/// per position in its manual_axes (a mesh has fewer than 64 axes): the
/// least fixed point of the rules below, reached by sweeping the body until
/// nothing grows.
class Variance {
public:
  explicit Variance(mlir::spmd::ManualComputationOp region) : region(region) {
    // An axis of size 1 holds one device: nothing differs along it.
    FailureOr<mlir::spmd::MeshAttr> mesh = mlir::spmd::lookupMesh(
        region, region.getMesh(), [&] { return region.emitError(); });
    if (succeeded(mesh))
      for (auto [i, axis] : llvm::enumerate(
               region.getManualAxes().getAsValueRange<StringAttr>()))
        for (auto [name, size] :
             llvm::zip((*mesh).getAxisNames(), (*mesh).getShape()))
          if (name.getValue() == axis && size > 1)
            varying |= uint64_t(1) << i;
    Block &body = region.getBody().front();
    for (BlockArgument argument : body.getArguments())
      join(argument,
           heldBits(region.getInShardings()[argument.getArgNumber()]));
    do {
      changed = false;
      for (Operation &op : body)
        op.walk<WalkOrder::PreOrder>([&](Operation *inner) { visit(inner); });
    } while (changed);
  }

  uint64_t of(Value value) const { return bits.lookup(value); }

  /// The bits of `axes` among the region's manual axes (of more than one
  /// device).
  uint64_t bitsOf(ArrayRef<StringRef> axes) {
    uint64_t result = 0;
    for (auto [i, axis] :
         llvm::enumerate(region.getManualAxes().getAsValueRange<StringAttr>()))
      if (llvm::is_contained(axes, axis))
        result |= uint64_t(1) << i;
    return result & varying;
  }

  /// The bits of the manual axes `sharding` splits a tensor over or leaves
  /// partial.
  uint64_t heldBits(Attribute sharding) {
    ::spmd::TensorSharding manual =
        region.manualPart(llvm::cast<mlir::spmd::ShardingAttr>(sharding));
    SmallVector<StringRef> axes(manual.partial.begin(), manual.partial.end());
    for (const ::spmd::DimSharding &dim : manual.dims)
      axes.append(dim.axes.begin(), dim.axes.end());
    return bitsOf(axes);
  }

private:
  /// Whether `operand` gives its op only its shape, the same on every
  /// device: the tensor of a tensor.dim, or an init that every step of a
  /// structured op overwrites and its body never reads (all loops
  /// parallel, the init's map a permutation; otherwise the op keeps the
  /// init's elements it does not write).
  static bool givesOnlyItsShape(OpOperand &operand) {
    Operation *op = operand.getOwner();
    if (auto dim = llvm::dyn_cast<tensor::DimOp>(op))
      return operand.get() == dim.getSource();
    auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op);
    return linalgOp && linalgOp.isDpsInit(&operand) &&
           !linalgOp.payloadUsesValueFromOperand(&operand) &&
           linalgOp.getNumLoops() == linalgOp.getNumParallelLoops() &&
           linalgOp.getMatchingIndexingMap(&operand).isPermutation();
  }

  void join(Value value, uint64_t more) {
    uint64_t &known = bits[value];
    if ((known | more) != known) {
      known |= more;
      changed = true;
    }
  }

  void visit(Operation *op) {
    if (auto branch = llvm::dyn_cast<RegionBranchOpInterface>(op))
      return visitBranch(branch);
    uint64_t result = 0;
    for (OpOperand &operand : op->getOpOperands())
      if (!givesOnlyItsShape(operand))
        result |= of(operand.get());
    for (Value used : capturedBy(op))
      result |= of(used);
    if (auto index = llvm::dyn_cast<mlir::spmd::AxisIndexOp>(op))
      result |= bitsOf({index.getAxis()});
    if (auto collective =
            llvm::dyn_cast<mlir::spmd::CollectiveOpInterface>(op)) {
      SmallVector<StringRef> group(
          collective.getAxesAttr().getAsValueRange<StringAttr>());
      result = (result | bitsOf(group)) & ~bitsOf(collective.getAxesMadeSame());
    }
    // A body (a linalg.generic's) sees its operands' and captured values'
    // axes, and its results whatever it yields.
    for (Region &body : op->getRegions())
      for (Block &block : body) {
        for (BlockArgument argument : block.getArguments())
          join(argument, result);
        if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
          for (Value yielded : block.back().getOperands())
            result |= of(yielded);
      }
    for (Value value : op->getResults())
      join(value, result);
  }

  /// What a region-branch op passes on (its results, its regions'
  /// arguments) gets what is passed there, and the axes of what chooses
  /// the path: its operands no region receives (a condition, a loop's
  /// bounds) and its terminators' operands no successor receives
  /// (scf.condition's condition). A loop's index gets only those.
  void visitBranch(RegionBranchOpInterface branch) {
    uint64_t control = 0;
    SmallVector<std::pair<Operation *, SmallVector<RegionSuccessor>>> sources;
    SmallVector<RegionSuccessor> entries;
    branch.getSuccessorRegions(RegionBranchPoint::parent(), entries);
    sources.emplace_back(branch, entries);
    for (Region &region : branch->getRegions())
      for (Block &block : region) {
        auto terminator =
            llvm::dyn_cast_or_null<RegionBranchTerminatorOpInterface>(
                block.empty() ? nullptr : &block.back());
        if (!terminator)
          continue;
        SmallVector<RegionSuccessor> successors;
        terminator.getSuccessorRegions(
            SmallVector<Attribute>(terminator->getNumOperands()), successors);
        sources.emplace_back(terminator, successors);
      }
    for (auto &[source, successors] : sources) {
      llvm::SmallBitVector passed(source->getNumOperands());
      for (const RegionSuccessor &successor : successors) {
        OperandRange operands = passedTo(source, successor);
        if (operands.empty())
          continue;
        unsigned first = operands.getBeginOperandIndex();
        passed.set(first, first + operands.size());
        for (auto [operand, input] :
             llvm::zip(operands, successor.getSuccessorInputs()))
          join(input, of(operand));
      }
      for (OpOperand &operand : source->getOpOperands())
        if (!passed.test(operand.getOperandNumber()))
          control |= of(operand.get());
    }
    for (Value result : branch->getResults())
      join(result, control);
    for (Region &region : branch->getRegions())
      if (!region.empty())
        for (BlockArgument argument : region.front().getArguments())
          join(argument, control);
  }

  /// The operands `source` (a region-branch op or one of its terminators)
  /// passes to `successor`.
  static OperandRange passedTo(Operation *source,
                               const RegionSuccessor &successor) {
    if (auto branch = llvm::dyn_cast<RegionBranchOpInterface>(source))
      return branch.getEntrySuccessorOperands(successor);
    return llvm::cast<RegionBranchTerminatorOpInterface>(source)
        .getSuccessorOperands(successor);
  }

  /// The values `op`'s regions read from outside it (a linalg.generic's
  /// scalar), found once per op.
  ArrayRef<Value> capturedBy(Operation *op) {
    auto [it, inserted] = captured.try_emplace(op);
    if (inserted && op->getNumRegions()) {
      llvm::SetVector<Value> values;
      op->walk([&](Operation *inner) {
        if (inner == op)
          return;
        for (Value used : inner->getOperands())
          if (!op->isAncestor(used.getParentBlock()->getParentOp()))
            values.insert(used);
      });
      it->second = values.takeVector();
    }
    return it->second;
  }

  mlir::spmd::ManualComputationOp region;
  /// The bits of the manual axes of more than one device.
  uint64_t varying = 0;
  DenseMap<Value, uint64_t> bits;
  DenseMap<Operation *, SmallVector<Value>> captured;
  bool changed = false;
};

} // namespace

/// The names of the set bits of `bits` among `region`'s manual axes.
static std::string axisNames(mlir::spmd::ManualComputationOp region,
                             uint64_t bits) {
  SmallVector<std::string> names;
  for (auto [i, axis] :
       llvm::enumerate(region.getManualAxes().getAsValueRange<StringAttr>()))
    if (bits & (uint64_t(1) << i))
      names.push_back(("\"" + axis + "\"").str());
  return llvm::join(names, ", ");
}

/// Warns where a result of `region` is said to be the same along manual
/// axes its yielded value may differ along.
static void checkRegion(mlir::spmd::ManualComputationOp region) {
  Variance variance(region);
  auto yield =
      llvm::cast<mlir::spmd::YieldOp>(region.getBody().front().getTerminator());
  uint64_t manual = (uint64_t(1) << region.getManualAxes().size()) - 1;
  for (auto [i, value] : llvm::enumerate(yield.getOperands())) {
    uint64_t differing = variance.of(value) &
                         ~variance.heldBits(region.getOutShardings()[i]) &
                         manual;
    if (!differing)
      continue;
    yield.emitWarning() << "result " << i
                        << " is said to be the same on every device along "
                        << axisNames(region, differing)
                        << " (its out_sharding does not split it there), but "
                           "the value yielded can differ along it: no "
                           "all_reduce, all_gather or broadcast over it makes "
                           "it the same after what differs (an in_sharding "
                           "that splits it, an axis_index, a collective that "
                           "gives each member its own part, a branch or loop "
                           "that such a value steers); spmd-run --check "
                           "compares the copies";
  }
}

void mlir::spmd::warnOnDifferingReplicatedResults(ModuleOp module) {
  module.walk([](ManualComputationOp region) { checkRegion(region); });
}
