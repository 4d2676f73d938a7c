//===- ReshardPlanner.cpp - Cheapest collectives between shardings --------===//

#include "partitioner/ReshardPlanner.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include "absl/container/flat_hash_map.h"

#include <cmath>
#include <queue>

using namespace spmd;
using llvm::ArrayRef;
using llvm::SmallVector;

double spmd::commBytes(CollectiveKind kind, int64_t n, double inBytes,
                       double outBytes) {
  double share = n > 0 ? double(n - 1) / double(n) : 0;
  switch (kind) {
  case CollectiveKind::AllReduce:
    return 2 * share * inBytes;
  case CollectiveKind::AllGather:
    return share * outBytes;
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllToAll:
  case CollectiveKind::Broadcast: // every member but one receives S
  case CollectiveKind::Reduce:
    return share * inBytes;
  case CollectiveKind::CollectivePermute:
    return n > 1 ? inBytes : 0;
  case CollectiveKind::AllSlice:
    return 0;
  case CollectiveKind::Redistribute:
    llvm_unreachable("a redistribute's bytes depend on its layouts");
  }
  llvm_unreachable("unknown collective");
}

std::optional<int64_t> spmd::byteCount(double bytes) {
  // 2^63 is the first double beyond int64; NaN is no count either.
  if (!(bytes >= 0 && bytes < 0x1p63))
    return std::nullopt;
  return std::llround(bytes);
}

/// The bytes of a block of `shape`, in floating point: costs of tensors
/// beyond 2^63 bytes are large, not wrapped around.
static double blockBytes(ArrayRef<int64_t> shape, int64_t elementBytes) {
  double bytes = elementBytes;
  for (int64_t size : shape)
    bytes *= size;
  return bytes;
}

static int64_t groupSize(const DeviceMesh &mesh, ArrayRef<AxisIndex> axes) {
  return mesh.groupSize(axes);
}

/// Regrouping shards of a dimension of `size` split `m` ways into groups of
/// `k` is exact when the shards line up: ceil(size/m) == k*ceil(size/(mk)).
static bool aligned(int64_t size, int64_t m, int64_t k) {
  return llvm::divideCeil(size, m) == k * llvm::divideCeil(size, m * k);
}

/// Calls `fn` with every non-empty ordered sequence of distinct elements of
/// `items`.
static void forEachSequence(ArrayRef<AxisIndex> items,
                            llvm::function_ref<void(const AxisList &)> fn) {
  AxisList current;
  std::vector<bool> taken(items.size(), false);
  // Sequences grow factorially: past a few thousand, the search's budget
  // would run out anyway.
  size_t budget = 4096;
  std::function<void()> extend = [&] {
    for (size_t i = 0; i < items.size() && budget; ++i) {
      if (taken[i])
        continue;
      --budget;
      taken[i] = true;
      current.push_back(items[i]);
      fn(current);
      extend();
      current.pop_back();
      taken[i] = false;
    }
  };
  extend();
}

namespace {
/// Generates the steps leaving one state.
class StepGenerator {
public:
  StepGenerator(const DeviceMesh &mesh, ArrayRef<int64_t> shape,
                int64_t elementBytes, ArrayRef<AxisIndex> relevant)
      : mesh(mesh), shape(shape), elementBytes(elementBytes),
        relevant(relevant) {}

  std::vector<ReshardStep> from(const ShardState &state) const;

private:
  double bytes(ArrayRef<int64_t> local) const {
    return blockBytes(local, elementBytes);
  }
  void finish(ReshardStep &step, double inBytes, double outBytes) const {
    step.localShape = localShape(mesh, shape, step.after);
    step.cost =
        commBytes(step.kind, groupSize(mesh, step.axes), inBytes, outBytes);
  }
  bool used(const ShardState &state, AxisIndex axis) const {
    return llvm::is_contained(state.partial, axis) ||
           llvm::any_of(state.dims, [&](const AxisList &d) {
             return llvm::is_contained(d, axis);
           });
  }

  const DeviceMesh &mesh;
  ArrayRef<int64_t> shape;
  int64_t elementBytes;
  ArrayRef<AxisIndex> relevant;
};
} // namespace

std::vector<ReshardStep> StepGenerator::from(const ShardState &state) const {
  std::vector<ReshardStep> steps;
  std::vector<int64_t> local = localShape(mesh, shape, state);
  double inBytes = bytes(local);
  unsigned rank = shape.size();

  for (unsigned d = 0; d < rank; ++d) {
    const AxisList &axes = state.dims[d];
    // all_gather of a minor suffix of the dimension's axes.
    for (size_t k = 1; k <= axes.size(); ++k) {
      AxisList prefix(axes.begin(), axes.end() - k);
      AxisList suffix(axes.end() - k, axes.end());
      int64_t n = groupSize(mesh, suffix), m = groupSize(mesh, prefix);
      ReshardStep step{CollectiveKind::AllGather, suffix, d};
      if (prefix.empty()) {
        if (n * local[d] > shape[d])
          step.truncate = shape[d];
      } else if (!aligned(shape[d], m, n)) {
        continue;
      }
      step.after = state;
      step.after.dims[d] = prefix;
      finish(step, inBytes, inBytes * n);
      steps.push_back(std::move(step));
    }
    // all_slice by one or more unused axes, in any order (several at once
    // stay exact from a whole dimension even where one at a time would
    // not line up).
    AxisList unused;
    for (AxisIndex axis : relevant)
      if (!used(state, axis))
        unused.push_back(axis);
    forEachSequence(unused, [&](const AxisList &added) {
      int64_t m = groupSize(mesh, axes), n = groupSize(mesh, added);
      if (m > 1 && !aligned(shape[d], m, n))
        return;
      ReshardStep step{CollectiveKind::AllSlice, added, d};
      step.after = state;
      step.after.dims[d].append(added.begin(), added.end());
      finish(step, inBytes, inBytes);
      steps.push_back(std::move(step));
    });
    // all_to_all moving a minor suffix of this dimension's axes to another
    // dimension (gathered here, split there).
    for (size_t k = 1; k <= axes.size(); ++k) {
      AxisList prefix(axes.begin(), axes.end() - k);
      AxisList suffix(axes.end() - k, axes.end());
      int64_t n = groupSize(mesh, suffix), m = groupSize(mesh, prefix);
      bool completes = prefix.empty() && n * local[d] > shape[d];
      if (!prefix.empty() && !aligned(shape[d], m, n))
        continue;
      for (unsigned t = 0; t < rank; ++t) {
        if (t == d || local[t] % n != 0)
          continue;
        int64_t mt = groupSize(mesh, state.dims[t]);
        if (mt > 1 && !aligned(shape[t], mt, n))
          continue;
        if (mt == 1 && int64_t(llvm::divideCeil(shape[t], n)) * n != local[t])
          continue;
        ReshardStep step{CollectiveKind::AllToAll, suffix, t};
        step.concatDim = d;
        if (completes)
          step.truncate = shape[d];
        step.after = state;
        step.after.dims[d] = prefix;
        step.after.dims[t].append(suffix.begin(), suffix.end());
        finish(step, inBytes, inBytes);
        steps.push_back(std::move(step));
      }
    }
    // collective_permute reordering the dimension's axes (few axes: their
    // orders grow factorially).
    if (axes.size() >= 2 && axes.size() <= 5) {
      AxisList order = axes;
      llvm::sort(order);
      do {
        if (order == axes)
          continue;
        ReshardStep step{CollectiveKind::CollectivePermute, order, d};
        step.permutedFrom = axes;
        step.after = state;
        step.after.dims[d] = order;
        finish(step, inBytes, inBytes);
        steps.push_back(std::move(step));
      } while (std::next_permutation(order.begin(), order.end()));
    }
  }

  // Reductions of pending partial axes: all of a subset, or scattered onto
  // a dimension.
  const AxisList &partial = state.partial;
  for (unsigned mask = 1; mask < (1u << partial.size()); ++mask) {
    AxisList chosen, rest;
    for (size_t i = 0; i < partial.size(); ++i)
      (mask & (1u << i) ? chosen : rest).push_back(partial[i]);
    int64_t n = groupSize(mesh, chosen);
    ReshardStep reduce{CollectiveKind::AllReduce, chosen};
    reduce.reduction = state.reduction;
    reduce.after = state;
    reduce.after.partial = rest;
    finish(reduce, inBytes, inBytes);
    steps.push_back(std::move(reduce));
    for (unsigned d = 0; d < rank; ++d) {
      int64_t m = groupSize(mesh, state.dims[d]);
      if (m > 1 && !aligned(shape[d], m, n))
        continue;
      ReshardStep scatter{CollectiveKind::ReduceScatter, chosen, d};
      scatter.reduction = state.reduction;
      scatter.after = state;
      scatter.after.partial = rest;
      scatter.after.dims[d].append(chosen.begin(), chosen.end());
      finish(scatter, inBytes, inBytes);
      steps.push_back(std::move(scatter));
    }
  }
  return steps;
}

/// The axes `states` name, sorted.
static SmallVector<AxisIndex> namedAxes(ArrayRef<const ShardState *> states) {
  SmallVector<AxisIndex> axes;
  for (const ShardState *s : states) {
    for (const AxisList &dim : s->dims)
      axes.append(dim.begin(), dim.end());
    axes.append(s->partial.begin(), s->partial.end());
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

double spmd::minReceiveBytes(const DeviceMesh &mesh, ArrayRef<int64_t> shape,
                             int64_t elementBytes, const ShardState &from,
                             const ShardState &to) {
  // Other axes change neither what a device holds nor what it needs.
  SmallVector<AxisIndex> axes = namedAxes({&from, &to});
  SmallVector<int64_t> sizes;
  for (AxisIndex axis : axes)
    sizes.push_back(mesh.axisSize(axis));
  bool reduces = llvm::any_of(from.partial, [&](AxisIndex axis) {
    return !llvm::is_contained(to.partial, axis);
  });
  int64_t positions = product(sizes);
  int64_t samples = std::min(positions, kMinBytesPositions);
  SmallVector<int64_t> coord(mesh.rank(), 0);
  double missing = 0;
  for (int64_t i = 0; i < samples; ++i) {
    // Evenly spaced positions when there are too many to visit.
    int64_t pos = samples == positions ? i : i * (positions / samples);
    SmallVector<int64_t> c = delinearize(pos, sizes);
    for (auto [axis, value] : llvm::zip_equal(axes, c))
      coord[axis] = value;
    double need = 1, held = 1;
    for (auto [target, source] :
         llvm::zip_equal(blockBounds(mesh, shape, to, coord),
                         blockBounds(mesh, shape, from, coord))) {
      auto [ts, te] = target;
      auto [fs, fe] = source;
      need *= te - ts;
      held *= std::max<int64_t>(0, std::min(te, fe) - std::max(ts, fs));
    }
    missing += reduces ? need : need - held;
  }
  return samples ? missing / samples * elementBytes : 0;
}

/// One redistribute from `from` to `to`, when neither is partial.
static std::optional<ReshardPlan> redistributePlan(const DeviceMesh &mesh,
                                                   ArrayRef<int64_t> shape,
                                                   int64_t elementBytes,
                                                   const ShardState &from,
                                                   const ShardState &to) {
  if (!from.partial.empty() || !to.partial.empty() || from == to)
    return std::nullopt;
  ReshardStep step{CollectiveKind::Redistribute, namedAxes({&from, &to})};
  step.after = to;
  step.localShape = localShape(mesh, shape, to);
  step.cost =
      minReceiveBytes(mesh, shape, elementBytes, from, to) + kRedistributeExtra;
  ReshardPlan plan;
  plan.cost = step.cost;
  plan.steps.push_back(std::move(step));
  return plan;
}

/// The plan that always exists: reduce the pending axes the target does
/// not keep, gather every split dimension whole, slice as the target does.
static ReshardPlan fallbackPlan(const DeviceMesh &mesh, ArrayRef<int64_t> shape,
                                int64_t elementBytes, const ShardState &from,
                                const ShardState &to) {
  ReshardPlan plan;
  plan.fallback = true;
  ShardState state = from;
  auto add = [&](ReshardStep step, double inBytes) {
    step.localShape = localShape(mesh, shape, step.after);
    double outBytes = blockBytes(step.localShape, elementBytes);
    step.cost =
        commBytes(step.kind, groupSize(mesh, step.axes), inBytes, outBytes);
    plan.cost += step.cost;
    state = step.after;
    plan.steps.push_back(std::move(step));
  };
  auto bytes = [&] {
    return blockBytes(localShape(mesh, shape, state), elementBytes);
  };
  AxisList reduced, kept;
  for (AxisIndex axis : state.partial)
    (llvm::is_contained(to.partial, axis) ? kept : reduced).push_back(axis);
  if (!reduced.empty()) {
    ReshardStep step{CollectiveKind::AllReduce, reduced};
    step.reduction = state.reduction;
    step.after = state;
    step.after.partial = kept;
    add(std::move(step), bytes());
  }
  for (unsigned d = 0; d < shape.size(); ++d) {
    if (state.dims[d].empty() || state.dims[d] == to.dims[d])
      continue;
    ReshardStep step{CollectiveKind::AllGather, state.dims[d], d};
    int64_t local = localShape(mesh, shape, state)[d];
    if (groupSize(mesh, state.dims[d]) * local > shape[d])
      step.truncate = shape[d];
    step.after = state;
    step.after.dims[d].clear();
    add(std::move(step), bytes());
  }
  for (unsigned d = 0; d < shape.size(); ++d) {
    if (to.dims[d].empty() || state.dims[d] == to.dims[d])
      continue;
    ReshardStep step{CollectiveKind::AllSlice, to.dims[d], d};
    step.after = state;
    step.after.dims[d] = to.dims[d];
    add(std::move(step), bytes());
  }
  return plan;
}

/// The cheapest plan of conventional collectives (the fallback plan when
/// the search runs out of budget).
static llvm::Expected<ReshardPlan> conventionalPlan(const DeviceMesh &mesh,
                                                    ArrayRef<int64_t> shape,
                                                    int64_t elementBytes,
                                                    const ShardState &from,
                                                    const ShardState &to) {
  // Only axes of either layout can help; others would only be undone.
  SmallVector<AxisIndex> relevant = namedAxes({&from, &to});
  StepGenerator generator(mesh, shape, elementBytes, relevant);

  // Dijkstra over layouts; ties broken by fewer steps, then by key, so the
  // plan is deterministic.
  struct Entry {
    double cost;
    size_t steps;
    std::string key;
    bool operator>(const Entry &o) const {
      return std::tie(cost, steps, key) > std::tie(o.cost, o.steps, o.key);
    }
  };
  struct Best {
    double cost;
    size_t steps;
    ShardState state;
    std::string parent;
    ReshardStep step;
    bool done = false;
  };
  // `best[...]` may move entries: a node is copied out before inserting.
  absl::flat_hash_map<std::string, Best> best;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  best[from.key()] = {0, 0, from, "", ReshardStep{}};
  queue.push({0, 0, from.key()});
  std::string target = to.key();
  size_t expanded = 0;
  while (!queue.empty()) {
    Entry top = queue.top();
    queue.pop();
    Best &node = best[top.key];
    if (node.done)
      continue;
    node.done = true;
    if (top.key == target)
      break;
    if (++expanded > kReshardSearchBudget)
      return fallbackPlan(mesh, shape, elementBytes, from, to);
    ShardState state = node.state;
    for (ReshardStep &step : generator.from(state)) {
      step.after.reduction = state.reduction;
      std::string key = step.after.key();
      double cost = top.cost + step.cost;
      size_t steps = top.steps + 1;
      auto it = best.find(key);
      if (it != best.end() &&
          std::tie(it->second.cost, it->second.steps) <= std::tie(cost, steps))
        continue;
      best[key] = {cost, steps, step.after, top.key, step};
      queue.push({cost, steps, key});
    }
  }
  auto found = best.find(target);
  if (found == best.end() || !found->second.done)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no reshard plan exists");
  ReshardPlan plan;
  plan.cost = found->second.cost;
  for (std::string key = target; key != from.key();) {
    const Best &node = best[key];
    plan.steps.push_back(node.step);
    key = node.parent;
  }
  std::reverse(plan.steps.begin(), plan.steps.end());
  return plan;
}

llvm::Expected<ReshardPlan> spmd::planReshard(const DeviceMesh &mesh,
                                              ArrayRef<int64_t> shape,
                                              int64_t elementBytes,
                                              const ShardState &from,
                                              const ShardState &to) {
  if (from.dims.size() != shape.size() || to.dims.size() != shape.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "reshard between shardings of other ranks");
  if (!llvm::all_of(to.partial, [&](AxisIndex axis) {
        return llvm::is_contained(from.partial, axis);
      }))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "a reshard cannot make a value partial over new axes");
  llvm::Expected<ReshardPlan> plan =
      conventionalPlan(mesh, shape, elementBytes, from, to);
  if (!plan)
    return plan;
  // One conventional collective is kept (a redistribute only saves the
  // padding an uneven gather moves), except a collective_permute: a
  // redistribute moves nothing for the devices that keep their block.
  bool oneCollective = plan->steps.size() == 1 &&
                       plan->steps[0].kind != CollectiveKind::CollectivePermute;
  if (std::optional<ReshardPlan> direct =
          redistributePlan(mesh, shape, elementBytes, from, to);
      !oneCollective && direct && direct->cost < plan->cost)
    *plan = std::move(*direct);
  assert((plan->steps.empty() ? from : plan->steps.back().after) == to &&
         "a reshard plan ends at its target layout");
  return plan;
}

void ReshardPlanCache::encode(const DeviceMesh &mesh, ArrayRef<int64_t> shape,
                              int64_t elementBytes, const ShardState &from,
                              const ShardState &to) {
  scratch.clear();
  scratch.push_back(reinterpret_cast<intptr_t>(&mesh));
  scratch.push_back(elementBytes);
  scratch.insert(scratch.end(), shape.begin(), shape.end());
  from.appendKey(scratch);
  to.appendKey(scratch);
}

double ReshardPlanCache::minBytes(const DeviceMesh &mesh,
                                  ArrayRef<int64_t> shape, int64_t elementBytes,
                                  const ShardState &from,
                                  const ShardState &to) {
  encode(mesh, shape, elementBytes, from, to);
  auto [it, inserted] = bounds.try_emplace(scratch, 0);
  if (inserted)
    it->second = minReceiveBytes(mesh, shape, elementBytes, from, to);
  return it->second;
}

const ReshardPlan *ReshardPlanCache::plan(const DeviceMesh &mesh,
                                          ArrayRef<int64_t> shape,
                                          int64_t elementBytes,
                                          const ShardState &from,
                                          const ShardState &to) {
  encode(mesh, shape, elementBytes, from, to);
  auto [it, inserted] = plans.try_emplace(scratch);
  if (inserted) {
    llvm::Expected<ReshardPlan> planned =
        planReshard(mesh, shape, elementBytes, from, to);
    if (planned)
      it->second = std::move(*planned);
    else
      llvm::consumeError(planned.takeError());
  }
  return it->second ? &*it->second : nullptr;
}

SmallVector<std::pair<int64_t, int64_t>>
spmd::permutationPairs(const DeviceMesh &mesh, const ReshardStep &step) {
  assert(step.kind == CollectiveKind::CollectivePermute &&
         "pairs of a collective_permute");
  // Positions are over the new order, `step.axes`.
  SmallVector<int64_t> sizes;
  for (AxisIndex a : step.axes)
    sizes.push_back(mesh.axisSize(a));
  SmallVector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t pos = 0, e = product(sizes); pos < e; ++pos) {
    SmallVector<int64_t> coords = delinearize(pos, sizes);
    int64_t oldIndex = 0;
    for (AxisIndex a : step.permutedFrom)
      oldIndex = oldIndex * mesh.axisSize(a) +
                 coords[llvm::find(step.axes, a) - step.axes.begin()];
    pairs.push_back({pos, oldIndex});
  }
  return pairs;
}
