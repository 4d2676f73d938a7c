//===- ManualReplication.cpp - Region results said to be the same ---------===//
//
// A manual region's out_sharding that leaves a result whole over a manual
// axis says every device along it yields the same value; only the first
// copy is what a run returns. Which manual axes each value of the body may
// differ along follows from the in_shardings, `axis_index` and the
// collectives (a sparse forward data-flow analysis, through loops and
// branches): a yield said to be the same along an axis its value may
// differ along is warned about, as shard_map's replication check does. A
// warning, not an error: the analysis cannot see that `x - x` is the same
// everywhere, and `spmd-run --check` compares the copies themselves.
//
//===----------------------------------------------------------------------===//

#include "ir/SpmdOps.h"
#include "passes/Import.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::dataflow;

namespace {

/// The manual axes a value may differ along, one bit per position in the
/// region's manual_axes (at most 64 axes: a mesh has fewer).
struct Axes {
  uint64_t bits = 0;

  static Axes join(const Axes &a, const Axes &b) { return {a.bits | b.bits}; }
  bool operator==(const Axes &other) const { return bits == other.bits; }
  void print(raw_ostream &os) const { os << bits; }
};

using AxesLattice = Lattice<Axes>;

class Variance : public SparseForwardDataFlowAnalysis<AxesLattice> {
public:
  Variance(DataFlowSolver &solver, mlir::spmd::ManualComputationOp region)
      : SparseForwardDataFlowAnalysis(solver), region(region) {}

  /// The bits of `axes` among the region's manual axes.
  uint64_t bitsOf(ArrayRef<StringRef> axes) {
    uint64_t bits = 0;
    for (auto [i, axis] :
         llvm::enumerate(region.getManualAxes().getAsValueRange<StringAttr>()))
      if (llvm::any_of(axes, [&](StringRef named) {
            // A sub-axis ("x:(2)2") differs along its axis.
            return named.split(':').first == axis;
          }))
        bits |= uint64_t(1) << i;
    return bits;
  }

  LogicalResult visitOperation(Operation *op,
                               ArrayRef<const AxesLattice *> operands,
                               ArrayRef<AxesLattice *> results) override {
    uint64_t bits = 0;
    for (const AxesLattice *operand : operands)
      bits |= operand->getValue().bits;
    // A body reads values from around it too (a linalg.generic's scalar).
    op->walk([&](Operation *inner) {
      for (Value used : inner->getOperands())
        if (!op->isAncestor(used.getParentBlock()->getParentOp()))
          bits |= getLatticeElementFor(getProgramPointAfter(op), used)
                      ->getValue()
                      .bits;
      if (auto index = llvm::dyn_cast<mlir::spmd::AxisIndexOp>(inner))
        bits |= bitsOf({index.getAxis()});
      if (auto collective =
              llvm::dyn_cast<mlir::spmd::CollectiveOpInterface>(inner)) {
        SmallVector<StringRef> axes(
            collective.getAxesAttr().getAsValueRange<StringAttr>());
        if (collective.givesMembersTheSame() && inner == op)
          bits &= ~bitsOf(axes);
        else if (!collective.givesMembersTheSame())
          bits |= bitsOf(axes);
      }
    });
    for (AxesLattice *result : results)
      propagateIfChanged(result, result->join(Axes{bits}));
    return success();
  }

  /// The body's arguments differ along the manual axes their in_sharding
  /// splits (or leaves partial); any other argument the analysis cannot
  /// follow may differ along all of them.
  void setToEntryState(AxesLattice *lattice) override {
    uint64_t bits = ~uint64_t(0);
    auto argument = llvm::dyn_cast<BlockArgument>(lattice->getAnchor());
    if (argument && argument.getOwner()->getParentOp() == region) {
      ::spmd::TensorSharding sharding =
          region.manualPart(llvm::cast<mlir::spmd::ShardingAttr>(
              region.getInShardings()[argument.getArgNumber()]));
      SmallVector<StringRef> axes(sharding.partial.begin(),
                                  sharding.partial.end());
      for (const ::spmd::DimSharding &dim : sharding.dims)
        axes.append(dim.axes.begin(), dim.axes.end());
      bits = bitsOf(axes);
    }
    propagateIfChanged(lattice, lattice->join(Axes{bits}));
  }

private:
  mlir::spmd::ManualComputationOp region;
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
  DataFlowSolver solver;
  solver.load<DeadCodeAnalysis>();
  solver.load<SparseConstantPropagation>();
  auto *variance = solver.load<Variance>(region);
  if (failed(solver.initializeAndRun(region)))
    return;
  auto yield =
      llvm::cast<mlir::spmd::YieldOp>(region.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(yield.getOperands())) {
    const AxesLattice *lattice = solver.lookupState<AxesLattice>(value);
    if (!lattice)
      continue;
    ::spmd::TensorSharding sharding = region.manualPart(
        llvm::cast<mlir::spmd::ShardingAttr>(region.getOutShardings()[i]));
    SmallVector<StringRef> held(sharding.partial.begin(),
                                sharding.partial.end());
    for (const ::spmd::DimSharding &dim : sharding.dims)
      held.append(dim.axes.begin(), dim.axes.end());
    uint64_t differing = lattice->getValue().bits & ~variance->bitsOf(held);
    uint64_t manual =
        (uint64_t(1) << region.getManualAxes().size()) - 1; // < 64 axes
    differing &= manual;
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
                           "gives each member its own part); spmd-run --check "
                           "compares the copies";
  }
}

void mlir::spmd::warnOnDifferingReplicatedResults(ModuleOp module) {
  module.walk([](ManualComputationOp region) { checkRegion(region); });
}
