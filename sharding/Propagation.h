//===- Propagation.h - Sharding propagation over a factor graph -*- C++ -*-===//
//
// The propagation engine, free of MLIR: tensors are nodes, ops are edges
// carrying a ShardingRule over their tensors. Shardings flow through edges
// by projecting each tensor's dimension shardings onto the rule's factors,
// merging per factor, and projecting back, on a worklist until nothing
// changes. Rules (see docs/sharding-semantics.md, "Propagation"):
//
// - User shardings are never overridden: closed dimensions never change,
//   open ones (`{"a", ?}`) are only extended.
// - Priorities: a round per distinct user priority, lowest first; in round
//   p only dimension shardings of priority <= p are sources.
// - Sources of a factor agree when each is a prefix of the longest, which
//   is then taken. On a conflict, `basic` keeps their common prefix;
//   `aggressive` takes the strongest source: lowest priority, then largest
//   tensor, then results before operands, then operands left to right.
// - An axis shards at most one factor of an op. When two factors want it,
//   the one whose source has the lower priority keeps it; then one that
//   leaves no partial results over a reduction factor (an FSDP weight
//   sharded like the batch is gathered; the activations stay sharded);
//   then, between those, the one whose source tensor is larger (the smaller
//   is resharded, as in Shardy: a sequence-split input meeting head-split
//   weights is gathered); then the one whose source comes first (results,
//   then operands left to right). Need-replication factors are never
//   sharded; permutation factors propagate only with `aggressive`.
// - These rules hold whatever order the wants arrive in. Each carried
//   axis remembers the edge that carried it and the dimension it came
//   from. When an op gives an axis to a dimension of a tensor whose other
//   dimension holds it by a carriage (not as the user wrote it), or other
//   axes to a dimension than were carried to it, and the op is that
//   carrier or its want is stronger than the carried one
//   (lower priority, then larger source tensor), the carriage is
//   forbidden and withdrawn with every axis carried on from it; the
//   worklist then goes on from there. Each withdrawal forbids something
//   new, so propagation ends.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_SHARDING_PROPAGATION_H
#define SPMD_SHARDING_PROPAGATION_H

#include "sharding/ShardingRule.h"
#include "sharding/TensorSharding.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <functional>
#include <tuple>

namespace spmd {

enum class PropagationStrategy { Basic, Aggressive };

class PropagationGraph {
public:
  using NodeId = unsigned;
  static constexpr int kNoOrigin = -1;
  /// Stands for an operand that is not a tensor (a rank-0 rule tensor).
  static constexpr NodeId kScalar = ~0u;

  /// The meshes shardings may name; nodes refer to them by index.
  explicit PropagationGraph(std::vector<std::pair<std::string, DeviceMesh>> meshes);

  /// Room for about `numNodes` nodes and `numEdges` edges: growing moves
  /// every node and edge.
  void reserve(unsigned numNodes, unsigned numEdges);
  NodeId addNode(llvm::ArrayRef<int64_t> shape);
  /// A sharding written by the user; `origin` names it for debugging (see
  /// `origin()`). Fails when the mesh or an axis is unknown or the rank is
  /// wrong.
  llvm::Error setUserSharding(NodeId node, const TensorSharding &sharding,
                              int origin = kNoOrigin);
  /// Marks every dimension of `node` closed and unsharded unless the user
  /// sharded it (for values of ops without a rule).
  void setReplicated(NodeId node, unsigned meshIndex);
  /// An op: `nodes[t]` is the rule's tensor t (kScalar for non-tensors);
  /// the first `numOperands` are its operands, the rest its results.
  /// Identical rules are kept once: a long program repeats a few, and
  /// edges stay small enough to be walked from the cache.
  void addEdge(ShardingRule rule, llvm::SmallVector<NodeId> nodes,
               unsigned numOperands);

  /// Names edges in the trace of `-debug-only=spmd-propagate` (e.g. the op
  /// and its location); "edge N" without it.
  void setEdgeNamer(std::function<std::string(unsigned edge)> namer) {
    edgeNamer = std::move(namer);
  }

  /// Runs to a fixpoint. Returns the number of edge evaluations.
  int64_t propagate(PropagationStrategy strategy);

  bool hasSharding(NodeId node) const { return nodes[node].mesh >= 0; }
  /// The node's sharding (propagated dimensions are closed). Nodes no
  /// sharding reached get a replicated sharding on `defaultMesh`.
  TensorSharding sharding(NodeId node, unsigned defaultMesh) const;
  /// A key that is equal for two nodes only if sharding() is: writing
  /// the result converts each distinct sharding once.
  void shardingKey(NodeId node, unsigned defaultMesh,
                   std::vector<int64_t> &key) const;
  /// Whether sharding() splits nothing and is pending nothing.
  bool isFullyReplicated(NodeId node) const;
  /// Per dimension, the origin of its sharding (kNoOrigin if unsharded).
  llvm::SmallVector<int> origins(NodeId node) const;

  unsigned numNodes() const { return nodes.size(); }
  llvm::ArrayRef<NodeId> edgeNodes(unsigned edge) const {
    return edges[edge].nodes;
  }
  /// Edges whose tensors are on different meshes, left alone.
  llvm::ArrayRef<unsigned> meshConflicts() const { return meshConflictEdges; }

private:
  static constexpr unsigned kUserAxis = ~0u;
  /// How an axis came to a dimension: the edge that carried it (kUserAxis
  /// when written), from which dimension of which node, in which round.
  struct Carriage {
    unsigned edge = kUserAxis;
    NodeId node = 0;
    unsigned dim = 0;
    unsigned round = 0;
  };
  struct Dim {
    llvm::SmallVector<AxisIndex, 2> axes;
    llvm::SmallVector<Carriage, 1> carriages; // one per axis
    bool closed = false;
    bool explicitPriority = false; // written as p<N> by the user
    int64_t writtenPriority = 0;
    /// The dimension's strength as a source: the priority of, and the size
    /// of the tensor the user wrote, its strongest source (a carried
    /// sharding is as strong as what it was carried from).
    int64_t priority = 0;
    int origin = kNoOrigin;
    int64_t sourceElements = 0;
  };
  struct Node {
    llvm::SmallVector<int64_t, 4> shape;
    int64_t numElements = 1;
    int mesh = -1;
    bool user = false;
    llvm::SmallVector<Dim, 4> dims;
    llvm::SmallVector<AxisIndex, 2> replicated, partial;
    ReductionKind partialKind = ReductionKind::Sum;
    llvm::SmallVector<unsigned, 4> edges;
  };
  struct Edge {
    Edge(unsigned rule, llvm::SmallVector<NodeId> nodes, unsigned numOperands)
        : rule(rule), nodes(std::move(nodes)), numOperands(numOperands) {}
    unsigned rule; // index into `rules`
    llvm::SmallVector<NodeId> nodes;
    unsigned numOperands;
  };
  /// What one tensor dimension says about one factor.
  struct Candidate {
    AxisList axes;
    int64_t priority;
    int64_t sourceElements;
    unsigned position; // results first, then operands left to right
    int origin;
    NodeId node; // the dimension it comes from
    unsigned dim;

    bool strongerThan(const Candidate &other) const;
    bool comesBefore(bool reduces, const Candidate &other,
                     bool otherReduces) const;
  };
  /// An axis an edge may not carry to a dimension of a node (node, dim,
  /// axis, edge): the carriage was withdrawn.
  using Forbidden = std::tuple<NodeId, unsigned, AxisIndex, unsigned>;

  /// evaluate()'s candidates per factor, kept between calls.
  std::vector<llvm::SmallVector<Candidate, 2>> candidateScratch;

  /// The index of `rule` in `rules`, added when it is new.
  unsigned internRule(ShardingRule rule);
  /// Propagates through `edge` the dimension shardings of priority <=
  /// `threshold`; appends the nodes that grew to `changed`.
  void evaluate(unsigned edge, int64_t threshold, PropagationStrategy strategy,
                llvm::SmallVectorImpl<NodeId> &changed);
  /// The mesh of every tensor of `edge` that has one; -1 when none has one,
  /// or when they disagree (then the edge is a mesh conflict).
  int edgeMesh(unsigned edge);
  /// Per factor of `rule`, what the dimension shardings of `edge`'s tensors
  /// of priority <= `threshold` say about it (in candidateScratch).
  llvm::MutableArrayRef<llvm::SmallVector<Candidate, 2>>
  collectCandidates(const Edge &edge, const ShardingRule &rule,
                    const DeviceMesh &mesh, int64_t threshold);
  /// The axes factor `f` takes from its (non-empty) `candidates`, into
  /// `axes`; returns the candidate that names the source.
  const Candidate *mergeFactor(unsigned edge, unsigned f,
                               llvm::ArrayRef<Candidate> candidates,
                               PropagationStrategy strategy,
                               const DeviceMesh &mesh, AxisList &axes) const;
  /// Leaves each mesh axis to one factor of `factorAxes` (the one whose
  /// `winner` comes first), truncating the others before it.
  void dropSharedAxes(unsigned edge, const ShardingRule &rule,
                      const DeviceMesh &mesh,
                      llvm::MutableArrayRef<AxisList> factorAxes,
                      llvm::ArrayRef<const Candidate *> winner) const;
  /// Grows the open dimensions of tensor `t` of `edge` to the axes
  /// `factorAxes` compose for them; whether any grew.
  bool growDims(unsigned edge, unsigned t, int meshIndex,
                llvm::ArrayRef<AxisList> factorAxes,
                llvm::ArrayRef<const Candidate *> winner);
  /// Gives `dim` the strength of `source` if it is stronger; whether it
  /// did.
  static bool strengthen(Dim &dim, const Candidate &source);
  /// When the axis `edge` gives to dimension `d` of its tensor `t`, for
  /// `want`, is held by another dimension of that tensor that an edge
  /// carried it to in this round, and `edge` is that carrier or `want` is
  /// stronger, forbids that carriage and withdraws it; whether it did.
  bool forbidBlockingCarriage(unsigned edge, unsigned t, unsigned d,
                              AxisIndex axis, const Candidate &want);
  /// When axis `i` of dimension `d` of `node` was carried there in this
  /// round, and `edge` is its carrier or `want` is stronger than the
  /// dimension, forbids that carriage and withdraws it; whether it did.
  bool forbidCarriage(unsigned edge, NodeId node, unsigned d, size_t i,
                      const Candidate &want);
  /// Removes the axes of dimension `d` of `node` from position `from` on,
  /// and every axis carried on from them, and recomputes the strength of
  /// the dimensions whose sources those were; records the nodes in
  /// `withdrawn`.
  void withdraw(NodeId node, unsigned d, size_t from);
  /// Sets the strength of dimension `d` of `node` to its strongest
  /// remaining source's (its written axes, the dimensions its carried
  /// axes came from); whether it changed.
  bool restrength(NodeId node, unsigned d);
  /// Runs the worklist of the round of priority `threshold` to a
  /// fixpoint; returns the number of edge evaluations.
  int64_t runRound(int64_t threshold, PropagationStrategy strategy);
  /// The name of `edge` in traces.
  std::string edgeName(unsigned edge) const;
  bool usesAxis(const Node &node, AxisIndex axis, unsigned exceptDim) const;

  std::vector<std::pair<std::string, DeviceMesh>> meshes;
  // SmallVector moves its elements when it grows (std::vector copies them,
  // their SmallVector members not being nothrow-movable).
  llvm::SmallVector<Node, 0> nodes;
  llvm::SmallVector<Edge, 0> edges;
  /// The distinct rules of the edges, and their indices by hash.
  std::vector<ShardingRule> rules;
  llvm::DenseMap<unsigned, llvm::SmallVector<unsigned, 1>> rulesByHash;
  std::vector<unsigned> meshConflictEdges;
  llvm::DenseSet<Forbidden> forbidden;
  /// Nodes whose axes were withdrawn since the worklist last looked.
  llvm::SmallVector<NodeId> withdrawn;
  unsigned round = 0;
  std::function<std::string(unsigned)> edgeNamer;
};

} // namespace spmd

#endif // SPMD_SHARDING_PROPAGATION_H
