//===- Propagation.cpp - Sharding propagation over a factor graph ---------===//

#include "sharding/Propagation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>

#define DEBUG_TYPE "spmd-propagate"

using namespace spmd;
using llvm::ArrayRef;
using llvm::MutableArrayRef;
using llvm::SmallVector;
using llvm::SmallVectorImpl;

/// Stronger sources win conflicts on a factor: lower priority, larger
/// tensor, earlier position.
/// Whether a source of `priority` and `elements` beats one of
/// `otherPriority` and `otherElements`.
static bool isStronger(int64_t priority, int64_t elements,
                       int64_t otherPriority, int64_t otherElements) {
  return priority != otherPriority ? priority < otherPriority
                                   : elements > otherElements;
}

bool PropagationGraph::Candidate::strongerThan(const Candidate &other) const {
  if (priority != other.priority || sourceElements != other.sourceElements)
    return isStronger(priority, sourceElements, other.priority,
                      other.sourceElements);
  return position < other.position;
}

/// Which factor keeps an axis two factors want (`reduces`: whether each is
/// a reduction factor): lower priority; then a factor that leaves no
/// partial results (a reduction gives up to it: an FSDP weight sharded like
/// the batch is gathered); then, between those, the larger source tensor,
/// as resharding the smaller one moves fewer bytes (Shardy's aggressive
/// rule: a sequence-split input meeting head-split weights is gathered, so
/// the heads stay split from the projections to the output projection);
/// then earlier position.
bool PropagationGraph::Candidate::comesBefore(bool reduces,
                                              const Candidate &other,
                                              bool otherReduces) const {
  if (priority != other.priority)
    return priority < other.priority;
  if (reduces != otherReduces)
    return otherReduces;
  if (!reduces && sourceElements != other.sourceElements)
    return sourceElements > other.sourceElements;
  return position < other.position;
}

PropagationGraph::PropagationGraph(
    std::vector<std::pair<std::string, DeviceMesh>> meshes)
    : meshes(std::move(meshes)) {}

void PropagationGraph::reserve(unsigned numNodes, unsigned numEdges) {
  nodes.reserve(numNodes);
  edges.reserve(numEdges);
}

PropagationGraph::NodeId PropagationGraph::addNode(ArrayRef<int64_t> shape) {
  Node node;
  node.shape.assign(shape.begin(), shape.end());
  node.numElements = product(shape);
  nodes.push_back(std::move(node));
  return nodes.size() - 1;
}

llvm::Error PropagationGraph::setUserSharding(NodeId id,
                                              const TensorSharding &sharding,
                                              int origin) {
  auto meshIt = llvm::find_if(
      meshes, [&](const auto &m) { return m.first == sharding.meshName; });
  if (meshIt == meshes.end())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown mesh @" + sharding.meshName);
  const DeviceMesh &mesh = meshIt->second;
  Node &node = nodes[id];
  if (llvm::Error err = sharding.verify(mesh, node.shape.size()))
    return err;
  node.mesh = meshIt - meshes.begin();
  node.user = true;
  node.dims.clear();
  for (const DimSharding &dimSharding : sharding.dims) {
    Dim dim;
    for (AxisIndex axis : llvm::cantFail(mesh.resolveAxes(dimSharding.axes)))
      dim.axes.push_back(axis);
    dim.carriages.assign(dim.axes.size(), Carriage());
    dim.closed = !dimSharding.open;
    dim.explicitPriority = dimSharding.priority.has_value();
    dim.priority = dimSharding.priority.value_or(0);
    dim.writtenPriority = dim.priority;
    dim.origin = origin;
    dim.sourceElements = node.numElements;
    node.dims.push_back(std::move(dim));
  }
  auto resolve = [&](const std::vector<std::string> &names) {
    AxisList axes;
    for (AxisIndex axis : llvm::cantFail(mesh.resolveAxes(names)))
      axes.push_back(axis);
    return axes;
  };
  node.replicated = resolve(sharding.replicated);
  node.partial = resolve(sharding.partial);
  node.partialKind = sharding.partialKind;
  return llvm::Error::success();
}

void PropagationGraph::setReplicated(NodeId id, unsigned meshIndex) {
  Node &node = nodes[id];
  if (node.user)
    return;
  node.mesh = meshIndex;
  node.dims.assign(node.shape.size(), Dim());
  for (Dim &dim : node.dims)
    dim.closed = true;
}

unsigned PropagationGraph::internRule(ShardingRule rule) {
  SmallVector<unsigned, 1> &same = rulesByHash[rule.hash()];
  for (unsigned index : same)
    if (rules[index] == rule)
      return index;
  same.push_back(rules.size());
  rules.push_back(std::move(rule));
  return rules.size() - 1;
}

void PropagationGraph::addEdge(ShardingRule rule, SmallVector<NodeId> ids,
                               unsigned numOperands) {
  assert(ids.size() == rule.numTensors() && numOperands <= ids.size() &&
         "a node per tensor of the rule, operands first");
  unsigned index = edges.size();
  for (NodeId id : ids)
    if (id != kScalar && !llvm::is_contained(nodes[id].edges, index))
      nodes[id].edges.push_back(index);
  edges.emplace_back(internRule(std::move(rule)), std::move(ids), numOperands);
}

bool PropagationGraph::usesAxis(const Node &node, AxisIndex axis,
                                unsigned exceptDim) const {
  for (auto [d, dim] : llvm::enumerate(node.dims))
    if (d != exceptDim && llvm::is_contained(dim.axes, axis))
      return true;
  return llvm::is_contained(node.replicated, axis) ||
         llvm::is_contained(node.partial, axis);
}

/// `axes` by name, as `[a, b]`, for traces.
[[maybe_unused]] static std::string axesText(const DeviceMesh &mesh,
                                             ArrayRef<AxisIndex> axes) {
  std::string text = "[";
  for (auto [i, a] : llvm::enumerate(axes))
    text += (i ? ", " : "") + mesh.axisName(a).str();
  return text + "]";
}

std::string PropagationGraph::edgeName(unsigned edge) const {
  return edgeNamer ? edgeNamer(edge) : "edge " + std::to_string(edge);
}

int PropagationGraph::edgeMesh(unsigned edgeIndex) {
  int meshIndex = -1;
  for (NodeId id : edges[edgeIndex].nodes) {
    if (id == kScalar)
      continue;
    int m = nodes[id].mesh;
    if (m < 0)
      continue;
    if (meshIndex >= 0 && m != meshIndex) {
      if (!llvm::is_contained(meshConflictEdges, edgeIndex))
        meshConflictEdges.push_back(edgeIndex);
      return -1;
    }
    meshIndex = m;
  }
  return meshIndex;
}

MutableArrayRef<SmallVector<PropagationGraph::Candidate, 2>>
PropagationGraph::collectCandidates(const Edge &edge, const ShardingRule &rule,
                                    const DeviceMesh &mesh, int64_t threshold) {
  unsigned numFactors = rule.numFactors();
  // Reused across evaluations: allocating per evaluation dominated them.
  if (candidateScratch.size() < numFactors)
    candidateScratch.resize(numFactors);
  MutableArrayRef<SmallVector<Candidate, 2>> candidates(candidateScratch.data(),
                                                        numFactors);
  for (SmallVector<Candidate, 2> &factor : candidates)
    factor.clear();
  SmallVector<AxisList, 4> projected(numFactors);
  unsigned numResults = edge.nodes.size() - edge.numOperands;
  for (auto [t, id] : llvm::enumerate(edge.nodes)) {
    if (id == kScalar)
      continue;
    const Node &node = nodes[id];
    if (node.mesh < 0 || node.dims.size() != rule.tensors[t].size())
      continue;
    unsigned position =
        t >= edge.numOperands ? t - edge.numOperands : numResults + t;
    for (auto [d, dim] : llvm::enumerate(node.dims)) {
      if (dim.axes.empty() || dim.priority > threshold)
        continue;
      const DimFactors &factors = rule.tensors[t][d];
      for (unsigned f : factors)
        projected[f].clear();
      projectDim(dim.axes, factors, rule.factorSizes, mesh, projected);
      for (unsigned f : factors)
        if (!projected[f].empty())
          candidates[f].push_back({projected[f], dim.priority,
                                   dim.sourceElements, position, dim.origin, id,
                                   unsigned(d)});
    }
  }
  return candidates;
}

const PropagationGraph::Candidate *
PropagationGraph::mergeFactor(unsigned edgeIndex, unsigned f,
                              ArrayRef<Candidate> candidates,
                              PropagationStrategy strategy,
                              const DeviceMesh &mesh, AxisList &axes) const {
  const Candidate *strongest = &candidates.front();
  const Candidate *longest = strongest;
  for (const Candidate &c : candidates) {
    if (c.strongerThan(*strongest))
      strongest = &c;
    if (c.axes.size() > longest->axes.size())
      longest = &c;
  }
  // Agree on the longest when all are its prefixes. On a real conflict,
  // basic keeps the common prefix, aggressive the strongest source.
  size_t common = longest->axes.size();
  for (const Candidate &c : candidates) {
    size_t k = 0;
    while (k < c.axes.size() && k < common && c.axes[k] == longest->axes[k])
      ++k;
    if (k < c.axes.size())
      common = std::min(common, k);
  }
  const Candidate *winner = strongest;
  if (common == longest->axes.size()) {
    // Agreeing sources: the strongest of those naming every axis taken.
    axes = longest->axes;
    winner = longest;
    for (const Candidate &c : candidates)
      if (c.axes == longest->axes && c.strongerThan(*winner))
        winner = &c;
  } else if (strategy == PropagationStrategy::Aggressive) {
    axes = strongest->axes;
  } else {
    axes.assign(longest->axes.begin(), longest->axes.begin() + common);
  }
  LLVM_DEBUG({
    if (common != longest->axes.size()) {
      llvm::dbgs() << "spmd-propagate: " << edgeName(edgeIndex) << ": factor "
                   << ShardingRule::factorName(f) << " is wanted as";
      for (const Candidate &c : candidates)
        llvm::dbgs() << " " << axesText(mesh, c.axes) << " (p" << c.priority
                     << ")";
      llvm::dbgs() << "; keeps " << axesText(mesh, axes) << " ("
                   << (strategy == PropagationStrategy::Aggressive
                           ? "the strongest source"
                           : "their common prefix")
                   << ")\n";
    }
  });
  return winner;
}

void PropagationGraph::dropSharedAxes(
    unsigned edgeIndex, const ShardingRule &rule, const DeviceMesh &mesh,
    MutableArrayRef<AxisList> factorAxes,
    ArrayRef<const Candidate *> winner) const {
  SmallVector<unsigned, 4> order;
  for (unsigned f = 0; f < rule.numFactors(); ++f)
    if (!factorAxes[f].empty())
      order.push_back(f);
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    auto reduces = [&](unsigned f) {
      return rule.factorKinds[f] == FactorKind::Reduction;
    };
    return winner[a]->comesBefore(reduces(a), *winner[b], reduces(b));
  });
  SmallVector<bool, 8> used(mesh.rank(), false);
  for (unsigned f : order) {
    AxisList &axes = factorAxes[f];
    auto clash = llvm::find_if(axes, [&](AxisIndex a) { return used[a]; });
    LLVM_DEBUG(if (clash != axes.end()) llvm::dbgs()
               << "spmd-propagate: " << edgeName(edgeIndex) << ": factor "
               << ShardingRule::factorName(f) << " gives up "
               << axesText(mesh, AxisList(clash, axes.end()))
               << ": another factor of the op holds " << mesh.axisName(*clash)
               << "\n");
    axes.erase(clash, axes.end());
    for (AxisIndex a : axes)
      used[a] = true;
  }
}

bool PropagationGraph::growDims(unsigned edgeIndex, unsigned t, int meshIndex,
                                ArrayRef<AxisList> factorAxes,
                                ArrayRef<const Candidate *> winner) {
  const Edge &edge = edges[edgeIndex];
  const ShardingRule &rule = rules[edge.rule];
  const DeviceMesh &mesh = meshes[meshIndex].second;
  NodeId id = edge.nodes[t];
  Node &node = nodes[id];
  if (node.mesh < 0) {
    node.mesh = meshIndex;
    node.dims.assign(node.shape.size(), Dim());
  }
  assert(node.mesh == meshIndex && node.dims.size() == node.shape.size() &&
         "a node on the edge's mesh, a sharding per dimension");
  bool grown = false;
  for (auto [d, dim] : llvm::enumerate(node.dims)) {
    if (dim.closed)
      continue;
    const DimFactors &factors = rule.tensors[t][d];
    AxisList proposed = composeDim(factors, factorAxes, rule.factorSizes, mesh);
    size_t old = dim.axes.size();
    // The candidate each proposed axis comes from.
    auto sourceOf = [&](AxisIndex axis) {
      for (unsigned f : factors)
        if (llvm::is_contained(factorAxes[f], axis))
          return winner[f];
      llvm_unreachable("a proposed axis comes from a factor some source won");
    };
    // Where the op wants other axes than the dimension holds (not fewer),
    // a stronger want withdraws what was carried there.
    size_t differs = std::mismatch(dim.axes.begin(), dim.axes.end(),
                                   proposed.begin(), proposed.end())
                         .first -
                     dim.axes.begin();
    if (differs < old && differs < proposed.size()) {
      forbidCarriage(edgeIndex, id, d, differs, *sourceOf(proposed[differs]));
      continue;
    }
    if (proposed.size() < old || proposed.empty())
      continue;
    // A dimension is as strong as the strongest source agreeing with it.
    if (old)
      grown |= strengthen(dim, *sourceOf(proposed.front()));
    size_t k = old;
    while (k < proposed.size() && !usesAxis(node, proposed[k], d) &&
           !forbidden.contains({id, unsigned(d), proposed[k], edgeIndex}))
      ++k;
    // After a withdrawal this dimension may have lost axes too: the edge,
    // queued again with the node, grows it then.
    if (k < proposed.size() && usesAxis(node, proposed[k], d) &&
        forbidBlockingCarriage(edgeIndex, t, d, proposed[k],
                               *sourceOf(proposed[k])))
      continue;
    if (k == old)
      continue;
    // The factor that gave the first new axis names the source.
    const Candidate *source = sourceOf(proposed[old]);
    LLVM_DEBUG(llvm::dbgs()
               << "spmd-propagate: " << edgeName(edgeIndex) << ": "
               << (t < edge.numOperands ? "operand " : "result ")
               << (t < edge.numOperands ? t : t - edge.numOperands) << " dim "
               << d << " " << axesText(mesh, dim.axes) << " -> "
               << axesText(mesh,
                           AxisList(proposed.begin(), proposed.begin() + k))
               << " through factor "
               << ShardingRule::factorName(factors.front()) << " (p"
               << source->priority << ")\n");
    for (size_t j = old; j < k; ++j) {
      const Candidate *from = sourceOf(proposed[j]);
      dim.carriages.push_back({edgeIndex, from->node, from->dim, round});
    }
    dim.axes.assign(proposed.begin(), proposed.begin() + k);
    if (!old) {
      dim.origin = source->origin;
      dim.priority = source->priority;
      dim.sourceElements = source->sourceElements;
    }
    strengthen(dim, *source);
    grown = true;
  }
  return grown;
}

bool PropagationGraph::strengthen(Dim &dim, const Candidate &source) {
  if (!isStronger(source.priority, source.sourceElements, dim.priority,
                  dim.sourceElements))
    return false;
  dim.priority = source.priority;
  dim.sourceElements = source.sourceElements;
  return true;
}

bool PropagationGraph::forbidBlockingCarriage(unsigned edgeIndex, unsigned t,
                                              unsigned d, AxisIndex axis,
                                              const Candidate &want) {
  NodeId id = edges[edgeIndex].nodes[t];
  for (auto [other, dim] : llvm::enumerate(nodes[id].dims)) {
    auto held = llvm::find(dim.axes, axis);
    if (other != d && held != dim.axes.end())
      return forbidCarriage(edgeIndex, id, other, held - dim.axes.begin(),
                            want);
  }
  return false;
}

bool PropagationGraph::forbidCarriage(unsigned edgeIndex, NodeId id, unsigned d,
                                      size_t i, const Candidate &want) {
  const Dim &dim = nodes[id].dims[d];
  const Carriage &carriage = dim.carriages[i];
  // Written axes stay, as do those of earlier rounds; another op's
  // carriage gives way only to a stronger want.
  if (carriage.edge == kUserAxis || carriage.round != round ||
      (carriage.edge != edgeIndex &&
       !isStronger(want.priority, want.sourceElements, dim.priority,
                   dim.sourceElements)))
    return false;
  AxisIndex axis = dim.axes[i];
  forbidden.insert({id, d, axis, carriage.edge});
  LLVM_DEBUG(llvm::dbgs() << "spmd-propagate: " << edgeName(edgeIndex)
                          << " wants another sharding: "
                          << edgeName(carriage.edge) << " may no longer carry "
                          << meshes[nodes[id].mesh].second.axisName(axis)
                          << " to dim " << d << "\n");
  withdraw(id, d, i);
  return true;
}

bool PropagationGraph::restrength(NodeId id, unsigned d) {
  const Node &node = nodes[id];
  Dim &dim = nodes[id].dims[d];
  std::optional<std::tuple<int64_t, int64_t, int>> strongest;
  for (const Carriage &carriage : dim.carriages) {
    std::tuple<int64_t, int64_t, int> source =
        carriage.edge == kUserAxis
            ? std::tuple(dim.writtenPriority, node.numElements, dim.origin)
            : std::tuple(nodes[carriage.node].dims[carriage.dim].priority,
                         nodes[carriage.node].dims[carriage.dim].sourceElements,
                         nodes[carriage.node].dims[carriage.dim].origin);
    if (!strongest ||
        isStronger(std::get<0>(source), std::get<1>(source),
                   std::get<0>(*strongest), std::get<1>(*strongest)))
      strongest = source;
  }
  if (!strongest || (std::get<0>(*strongest) == dim.priority &&
                     std::get<1>(*strongest) == dim.sourceElements))
    return false;
  std::tie(dim.priority, dim.sourceElements, dim.origin) = *strongest;
  return true;
}

void PropagationGraph::withdraw(NodeId id, unsigned d, size_t from) {
  // (node, dim, first axis to remove); past the end: only its strength,
  // which came from what was withdrawn, is recomputed.
  SmallVector<std::tuple<NodeId, unsigned, size_t>> pending = {{id, d, from}};
  while (!pending.empty()) {
    auto [node, dimIndex, first] = pending.pop_back_val();
    Dim &dim = nodes[node].dims[dimIndex];
    SmallVector<AxisIndex, 2> gone(
        dim.axes.begin() + std::min(first, dim.axes.size()), dim.axes.end());
    dim.axes.truncate(dim.axes.size() - gone.size());
    dim.carriages.truncate(dim.axes.size());
    // Strength an agreeing source added comes back when its edge, queued
    // again with the node, agrees again.
    bool weaker = restrength(node, dimIndex);
    if (gone.empty() && !weaker)
      continue;
    withdrawn.push_back(node);
    // What was carried on from here sits on tensors of this node's edges.
    for (unsigned e : nodes[node].edges)
      for (NodeId target : edges[e].nodes) {
        if (target == kScalar)
          continue;
        for (auto [targetDim, to] : llvm::enumerate(nodes[target].dims))
          for (auto [i, carriage] : llvm::enumerate(to.carriages))
            if (carriage.edge == e && carriage.node == node &&
                carriage.dim == dimIndex) {
              pending.push_back(
                  {target, unsigned(targetDim),
                   llvm::is_contained(gone, to.axes[i]) ? i : to.axes.size()});
              break;
            }
      }
  }
}

void PropagationGraph::evaluate(unsigned edgeIndex, int64_t threshold,
                                PropagationStrategy strategy,
                                SmallVectorImpl<NodeId> &changed) {
  const Edge &edge = edges[edgeIndex];
  const ShardingRule &rule = rules[edge.rule];
  // All tensors of an op must live on one mesh.
  int meshIndex = edgeMesh(edgeIndex);
  if (meshIndex < 0)
    return;
  const DeviceMesh &mesh = meshes[meshIndex].second;

  // Project every visible dimension sharding onto the factors, and merge
  // per factor.
  MutableArrayRef<SmallVector<Candidate, 2>> candidates =
      collectCandidates(edge, rule, mesh, threshold);
  unsigned numFactors = rule.numFactors();
  SmallVector<AxisList, 4> factorAxes(numFactors);
  SmallVector<const Candidate *, 4> winner(numFactors, nullptr);
  for (unsigned f = 0; f < numFactors; ++f) {
    FactorKind kind = rule.factorKinds[f];
    if (candidates[f].empty() || kind == FactorKind::NeedReplication ||
        (kind == FactorKind::Permutation &&
         strategy == PropagationStrategy::Basic))
      continue;
    winner[f] =
        mergeFactor(edgeIndex, f, candidates[f], strategy, mesh, factorAxes[f]);
  }
  // An axis shards at most one factor (see the header for who keeps it).
  dropSharedAxes(edgeIndex, rule, mesh, factorAxes, winner);

  // Project back onto every tensor; only open dimensions grow.
  for (auto [t, id] : llvm::enumerate(edge.nodes))
    if (id != kScalar && nodes[id].shape.size() == rule.tensors[t].size() &&
        growDims(edgeIndex, t, meshIndex, factorAxes, winner))
      changed.push_back(id);
}

int64_t PropagationGraph::propagate(PropagationStrategy strategy) {
  SmallVector<int64_t> thresholds;
  for (const Node &node : nodes)
    for (const Dim &dim : node.dims)
      if (!dim.axes.empty())
        thresholds.push_back(dim.priority);
  llvm::sort(thresholds);
  thresholds.erase(llvm::unique(thresholds), thresholds.end());

  int64_t evaluations = 0;
  for (int64_t threshold : thresholds) {
    LLVM_DEBUG(llvm::dbgs() << "spmd-propagate: shardings of priority p"
                            << threshold << " and below\n");
    ++round;
    evaluations += runRound(threshold, strategy);
  }
  return evaluations;
}

int64_t PropagationGraph::runRound(int64_t threshold,
                                   PropagationStrategy strategy) {
  int64_t evaluations = 0;
  SmallVector<NodeId> changed;
  std::deque<unsigned> queue;
  std::vector<bool> queued(edges.size(), true);
  for (unsigned e = 0; e < edges.size(); ++e)
    queue.push_back(e);
  while (!queue.empty()) {
    unsigned e = queue.front();
    queue.pop_front();
    queued[e] = false;
    changed.clear();
    ++evaluations;
    evaluate(e, threshold, strategy, changed);
    changed.append(withdrawn.begin(), withdrawn.end());
    withdrawn.clear();
    for (NodeId id : changed)
      for (unsigned next : nodes[id].edges)
        if (!queued[next]) {
          queued[next] = true;
          queue.push_back(next);
        }
  }
  return evaluations;
}

TensorSharding PropagationGraph::sharding(NodeId id,
                                          unsigned defaultMesh) const {
  const Node &node = nodes[id];
  if (node.mesh < 0)
    return TensorSharding::replicatedOf(meshes[defaultMesh].first,
                                        node.shape.size());
  const DeviceMesh &mesh = meshes[node.mesh].second;
  auto names = [&](ArrayRef<AxisIndex> axes) {
    std::vector<std::string> result;
    for (AxisIndex a : axes)
      result.push_back(mesh.axisName(a).str());
    return result;
  };
  std::vector<DimSharding> dims;
  for (const Dim &dim : node.dims) {
    DimSharding out;
    out.axes = names(dim.axes);
    // Propagated dimensions are written closed; the user's keep their form.
    out.open = node.user && !dim.closed;
    if (dim.explicitPriority)
      out.priority = dim.writtenPriority;
    dims.push_back(std::move(out));
  }
  return TensorSharding(meshes[node.mesh].first, std::move(dims),
                        names(node.replicated), names(node.partial),
                        node.partialKind);
}

void PropagationGraph::shardingKey(NodeId id, unsigned defaultMesh,
                                   std::vector<int64_t> &key) const {
  const Node &node = nodes[id];
  key.clear();
  key.push_back(node.mesh < 0 ? defaultMesh : node.mesh);
  key.push_back(node.shape.size());
  if (node.mesh < 0)
    return;
  auto list = [&](ArrayRef<AxisIndex> axes) {
    key.push_back(axes.size());
    key.insert(key.end(), axes.begin(), axes.end());
  };
  for (const Dim &dim : node.dims) {
    list(dim.axes);
    key.push_back(node.user && !dim.closed);
    key.push_back(dim.explicitPriority ? dim.writtenPriority : -1);
  }
  list(node.replicated);
  list(node.partial);
  key.push_back(int64_t(node.partialKind));
}

bool PropagationGraph::isFullyReplicated(NodeId id) const {
  const Node &node = nodes[id];
  return node.partial.empty() && llvm::all_of(node.dims, [](const Dim &d) {
           return d.axes.empty();
         });
}

SmallVector<int> PropagationGraph::origins(NodeId id) const {
  SmallVector<int> result;
  for (const Dim &dim : nodes[id].dims)
    result.push_back(dim.axes.empty() ? kNoOrigin : dim.origin);
  if (result.empty())
    result.assign(nodes[id].shape.size(), kNoOrigin);
  return result;
}
