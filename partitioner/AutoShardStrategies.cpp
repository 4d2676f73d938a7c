//===- AutoShardStrategies.cpp - An op's candidate strategies, costed -----===//

#include "partitioner/AutoShardStrategies.h"

#include <algorithm>

namespace spmd {

AxisCosts AxisCosts::uniform(const DeviceMesh &mesh, double secondsPerByte,
                             llvm::ArrayRef<bool> dcnAxes, double dcnFactor) {
  AxisCosts costs;
  for (AxisIndex a = 0; a < mesh.rank(); ++a)
    costs.secondsPerByte.push_back(
        secondsPerByte * (a < dcnAxes.size() && dcnAxes[a] ? dcnFactor : 1));
  return costs;
}

double AxisCosts::seconds(llvm::ArrayRef<AxisIndex> axes, double bytes) const {
  double slowest = 0;
  for (AxisIndex a : axes)
    slowest = std::max(slowest, secondsPerByte[a]);
  return bytes * slowest;
}

std::vector<OpStrategy>
enumerateStrategies(const DeviceMesh &mesh, const ShardingRule &rule,
                    llvm::ArrayRef<std::vector<int64_t>> shapes,
                    unsigned numOperands, int64_t elementBytes,
                    double flopsPerPoint, const AxisCosts &costs) {
  assert(shapes.size() == rule.numTensors() && "a shape per tensor");
  unsigned numFactors = rule.numFactors();
  double points = double(product(rule.factorSizes));
  std::vector<OpStrategy> strategies;
  // choice[a]: the factor axis a shards, or numFactors for none.
  std::vector<unsigned> choice(mesh.rank(), 0);
  while (true) {
    std::vector<AxisList> factorAxes(numFactors);
    bool valid = true;
    for (AxisIndex a = 0; a < mesh.rank() && valid; ++a) {
      unsigned f = choice[a];
      if (f == numFactors)
        continue;
      FactorKind kind = rule.factorKinds[f];
      valid = kind == FactorKind::Parallel || kind == FactorKind::Reduction;
      factorAxes[f].push_back(a);
    }
    for (unsigned f = 0; f < numFactors && valid; ++f) {
      int64_t shards = 1;
      for (AxisIndex a : factorAxes[f])
        shards *= mesh.axisSize(a);
      valid = rule.factorSizes[f] % shards == 0;
    }
    OpStrategy s;
    s.factorAxes = factorAxes;
    double localPoints = points;
    for (unsigned f = 0; f < numFactors && valid; ++f)
      for (AxisIndex a : factorAxes[f])
        localPoints /= double(mesh.axisSize(a));
    for (unsigned t = 0; t < rule.numTensors() && valid; ++t) {
      ShardState state;
      for (const DimFactors &dim : rule.tensors[t]) {
        AxisList axes = composeDim(dim, factorAxes, rule.factorSizes, mesh);
        // A compound dimension must give each factor back its axes.
        llvm::SmallVector<AxisList, 4> projected(numFactors);
        projectDim(axes, dim, rule.factorSizes, mesh, projected);
        for (unsigned f : dim)
          valid &= projected[f] == factorAxes[f];
        state.dims.emplace_back(axes.begin(), axes.end());
      }
      if (t >= numOperands) {
        for (unsigned f = 0; f < numFactors; ++f)
          if (rule.factorKinds[f] == FactorKind::Reduction)
            state.partial.append(factorAxes[f].begin(), factorAxes[f].end());
        std::vector<int64_t> local = localShape(mesh, shapes[t], state);
        s.resultBytes += double(product(local) * elementBytes);
      }
      s.tensors.push_back(std::move(state));
    }
    if (valid) {
      s.computeSeconds = flopsPerPoint * localPoints * costs.secondsPerFlop;
      strategies.push_back(std::move(s));
    }
    // Next choice (odometer, last axis fastest).
    AxisIndex a = mesh.rank();
    while (a > 0 && ++choice[a - 1] > numFactors)
      choice[--a] = 0;
    if (a == 0)
      break;
  }
  // The replicated strategy (no axis used) first.
  auto replicated = llvm::find_if(strategies, [](const OpStrategy &s) {
    return llvm::all_of(s.factorAxes,
                        [](const AxisList &axes) { return axes.empty(); });
  });
  if (replicated != strategies.end())
    std::rotate(strategies.begin(), replicated, replicated + 1);
  return strategies;
}

double reshardSeconds(ReshardPlanCache &cache, const DeviceMesh &mesh,
                      llvm::ArrayRef<int64_t> shape, int64_t elementBytes,
                      const ShardState &from, const ShardState &to,
                      const AxisCosts &costs) {
  if (from == to)
    return 0;
  // Pending axes the source lacks cost nothing (the first device of each
  // group keeps the value, the others hold zeros); the planner only plans
  // what moves.
  ShardState target = to;
  llvm::erase_if(target.partial, [&](AxisIndex a) {
    return !llvm::is_contained(from.partial, a);
  });
  if (target.partial.empty())
    target.reduction = from.reduction;
  if (from == target)
    return 0;
  // On meshes of three axes or more the planner's search is too slow to run
  // for every pair of strategies. There a pending value is all-reduced over
  // the axes the target does not keep pending, then moves what its devices
  // lack of their new blocks, as one redistribute over the axes either
  // layout names would move it.
  if (mesh.rank() > kPlannedAxes) {
    double seconds = 0;
    ShardState reduced = from;
    llvm::SmallVector<AxisIndex> summed;
    llvm::erase_if(reduced.partial, [&](AxisIndex a) {
      if (llvm::is_contained(target.partial, a))
        return false;
      summed.push_back(a);
      return true;
    });
    if (!summed.empty()) {
      int64_t group = 1;
      for (AxisIndex a : summed)
        group *= mesh.axisSize(a);
      double block =
          double(product(localShape(mesh, shape, from)) * elementBytes);
      seconds += costs.seconds(
          summed, commBytes(CollectiveKind::AllReduce, group, block, block));
    }
    llvm::SmallVector<AxisIndex> axes;
    auto named = [&](const ShardState &layout) {
      for (const auto &dim : layout.dims)
        for (AxisIndex a : dim)
          if (!llvm::is_contained(axes, a))
            axes.push_back(a);
    };
    named(reduced);
    named(target);
    if (!(reduced == target))
      seconds += costs.seconds(
          axes, cache.minBytes(mesh, shape, elementBytes, reduced, target));
    return seconds;
  }
  const ReshardPlan *plan = cache.plan(mesh, shape, elementBytes, from, target);
  if (!plan) {
    // Layouts the planner has no plan between (none known today) cost
    // more than any plan: every device receiving the whole tensor over the
    // slowest axis, twice.
    llvm::SmallVector<AxisIndex> all;
    for (AxisIndex a = 0; a < mesh.rank(); ++a)
      all.push_back(a);
    return 2 * costs.seconds(all, double(product(shape) * elementBytes));
  }
  double seconds = 0;
  for (const ReshardStep &step : plan->steps)
    seconds += costs.seconds(step.axes, step.cost);
  return seconds;
}

} // namespace spmd
