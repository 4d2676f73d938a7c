//===- AutoShardStrategies.cpp - An op's candidate strategies, costed -----===//

#include "partitioner/AutoShardStrategies.h"

#include <algorithm>
#include <cmath>
#include <optional>

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

/// The strategy giving each axis `a` to factor `choice[a]` (`numFactors`:
/// to none), or nullopt where that does not shard the op.
static std::optional<OpStrategy>
makeStrategy(const DeviceMesh &mesh, const ShardingRule &rule,
             llvm::ArrayRef<std::vector<int64_t>> shapes, unsigned numOperands,
             int64_t elementBytes, double flopsPerPoint, const AxisCosts &costs,
             const StrategySearch &search, llvm::ArrayRef<unsigned> choice) {
  unsigned numFactors = rule.numFactors();
  std::vector<AxisList> factorAxes(numFactors);
  for (AxisIndex a = 0; a < mesh.rank(); ++a) {
    unsigned f = choice[a];
    if (f == numFactors)
      continue;
    FactorKind kind = rule.factorKinds[f];
    if (kind != FactorKind::Parallel &&
        (kind != FactorKind::Reduction || !search.splitReductions))
      return std::nullopt;
    factorAxes[f].push_back(a);
  }
  // Each factor's axes divide it (without forming their product, which
  // may not fit in 64 bits).
  for (unsigned f = 0; f < numFactors; ++f) {
    int64_t rest = rule.factorSizes[f];
    for (AxisIndex a : factorAxes[f]) {
      if (rest % mesh.axisSize(a) != 0)
        return std::nullopt;
      rest /= mesh.axisSize(a);
    }
  }
  OpStrategy s;
  s.factorAxes = factorAxes;
  double localPoints = double(product(rule.factorSizes));
  for (unsigned f = 0; f < numFactors; ++f)
    for (AxisIndex a : factorAxes[f])
      localPoints /= double(mesh.axisSize(a));
  for (unsigned t = 0; t < rule.numTensors(); ++t) {
    ShardState state;
    for (const DimFactors &dim : rule.tensors[t]) {
      AxisList axes = composeDim(dim, factorAxes, rule.factorSizes, mesh);
      // A compound dimension must give each factor back its axes.
      llvm::SmallVector<AxisList, 4> projected(numFactors);
      projectDim(axes, dim, rule.factorSizes, mesh, projected);
      for (unsigned f : dim)
        if (projected[f] != factorAxes[f])
          return std::nullopt;
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
  s.computeSeconds = flopsPerPoint * localPoints * costs.secondsPerFlop;
  return s;
}

/// The strategies of a mesh too large to try every choice: a beam over
/// the axes, in mesh order, keeping the partial assignments that may
/// still split the op over the most devices (the least local compute).
/// Axes of size 1 split nothing and stay unused.
static std::vector<OpStrategy>
searchStrategies(const DeviceMesh &mesh, const ShardingRule &rule,
                 llvm::ArrayRef<std::vector<int64_t>> shapes,
                 unsigned numOperands, int64_t elementBytes,
                 double flopsPerPoint, const AxisCosts &costs,
                 const StrategySearch &search) {
  unsigned numFactors = rule.numFactors();
  auto splittable = [&](unsigned f) {
    FactorKind kind = rule.factorKinds[f];
    return kind == FactorKind::Parallel ||
           (kind == FactorKind::Reduction && search.splitReductions);
  };
  struct Partial {
    std::vector<unsigned> choice;
    /// What each factor has left to split.
    std::vector<int64_t> rest;
    /// Devices the op is split over so far, and at most in the end.
    double devices = 1, bound = 1;
  };
  // Devices the axes from `a` on may add at most.
  std::vector<double> tail(mesh.rank() + 1, 1);
  for (AxisIndex a = mesh.rank(); a > 0; --a)
    tail[a - 1] = tail[a] * double(mesh.axisSize(a - 1));
  auto boundOf = [&](Partial &p, AxisIndex next) {
    double room = 1;
    for (unsigned f = 0; f < numFactors; ++f)
      if (splittable(f))
        room *= double(p.rest[f]);
    p.bound = p.devices * std::min(room, tail[next]);
  };
  size_t width = std::max<size_t>(4 * search.limit, 64);
  Partial root;
  root.rest.assign(rule.factorSizes.begin(), rule.factorSizes.end());
  boundOf(root, 0);
  std::vector<Partial> beam{root};
  for (AxisIndex a = 0; a < mesh.rank() && search.limit > 1; ++a) {
    int64_t size = mesh.axisSize(a);
    std::vector<Partial> next;
    for (const Partial &p : beam) {
      for (unsigned f = 0; f <= numFactors; ++f) {
        if (f < numFactors &&
            (size == 1 || !splittable(f) || p.rest[f] % size != 0))
          continue;
        Partial child = p;
        child.choice.push_back(f);
        if (f < numFactors) {
          child.rest[f] /= size;
          child.devices *= double(size);
        }
        boundOf(child, a + 1);
        next.push_back(std::move(child));
      }
    }
    // Stable: among equals, the order of the enumeration (factor by
    // factor, none last).
    std::stable_sort(next.begin(), next.end(),
                     [](const Partial &x, const Partial &y) {
                       return std::make_pair(x.bound, x.devices) >
                              std::make_pair(y.bound, y.devices);
                     });
    if (next.size() > width)
      next.resize(width);
    beam = std::move(next);
  }
  std::vector<unsigned> none(mesh.rank(), numFactors);
  std::optional<OpStrategy> replicated =
      makeStrategy(mesh, rule, shapes, numOperands, elementBytes,
                   flopsPerPoint, costs, search, none);
  assert(replicated && "using no axis always shards an op");
  std::vector<OpStrategy> strategies{std::move(*replicated)};
  for (const Partial &p : beam) {
    if (strategies.size() >= search.limit)
      break;
    if (p.choice.size() != mesh.rank() || p.choice == none)
      continue;
    if (std::optional<OpStrategy> s =
            makeStrategy(mesh, rule, shapes, numOperands, elementBytes,
                         flopsPerPoint, costs, search, p.choice))
      strategies.push_back(std::move(*s));
  }
  return strategies;
}

std::vector<OpStrategy>
enumerateStrategies(const DeviceMesh &mesh, const ShardingRule &rule,
                    llvm::ArrayRef<std::vector<int64_t>> shapes,
                    unsigned numOperands, int64_t elementBytes,
                    double flopsPerPoint, const AxisCosts &costs,
                    const StrategySearch &search) {
  assert(shapes.size() == rule.numTensors() && "a shape per tensor");
  assert(search.limit >= 1 && "the replicated strategy is always kept");
  unsigned numFactors = rule.numFactors();
  double choices = std::pow(double(numFactors + 1), double(mesh.rank()));
  if (choices > kEnumeratedChoices || search.limit == 1)
    return searchStrategies(mesh, rule, shapes, numOperands, elementBytes,
                            flopsPerPoint, costs, search);
  std::vector<OpStrategy> strategies;
  // choice[a]: the factor axis a shards, or numFactors for none.
  std::vector<unsigned> choice(mesh.rank(), 0);
  while (true) {
    if (std::optional<OpStrategy> s =
            makeStrategy(mesh, rule, shapes, numOperands, elementBytes,
                         flopsPerPoint, costs, search, choice))
      strategies.push_back(std::move(*s));
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
                      const AxisCosts &costs, bool quick) {
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
          axes, quick ? double(product(localShape(mesh, shape, target)) *
                               elementBytes)
                      : cache.minBytes(mesh, shape, elementBytes, reduced,
                                       target));
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
