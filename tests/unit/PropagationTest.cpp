//===- PropagationTest.cpp - The propagation engine -----------------------===//

#include "sharding/Propagation.h"

#include "gtest/gtest.h"

using namespace spmd;
using NodeId = PropagationGraph::NodeId;

namespace {
/// A graph on the mesh @mesh = <["x"=2, "y"=4]> (and @other), with helpers
/// that speak in sharding strings.
class Propagation : public ::testing::Test {
protected:
  Propagation()
      : graph({{"mesh",
                llvm::cantFail(DeviceMesh::create({"x", "y", "z"}, {2, 4, 2}))},
               {"other", llvm::cantFail(DeviceMesh::create({"x"}, {2}))}}) {}

  void user(NodeId node, std::vector<DimSharding> dims,
            std::string mesh = "mesh", std::vector<std::string> partial = {}) {
    llvm::cantFail(graph.setUserSharding(
        node, TensorSharding(mesh, std::move(dims), {}, std::move(partial)),
        /*origin=*/static_cast<int>(node)));
  }
  std::string result(NodeId node) { return graph.sharding(node, 0).str(); }

  /// C[i,k] = A[i,j] * B[j,k]
  void matmul(NodeId a, NodeId b, NodeId c, int64_t i, int64_t j, int64_t k) {
    ShardingRule rule;
    unsigned fi = rule.addFactor(i, FactorKind::Parallel);
    unsigned fj = rule.addFactor(j, FactorKind::Reduction);
    unsigned fk = rule.addFactor(k, FactorKind::Parallel);
    rule.addTensor({{fi}, {fj}});
    rule.addTensor({{fj}, {fk}});
    rule.addTensor({{fi}, {fk}});
    graph.addEdge(std::move(rule), {a, b, c}, 2);
  }
  void elementwise(llvm::ArrayRef<int64_t> shape,
                   llvm::SmallVector<NodeId> nodes) {
    graph.addEdge(ShardingRule::identity(shape, nodes.size()), nodes,
                  nodes.size() - 1);
  }

  static DimSharding closed(std::vector<std::string> axes) {
    return {std::move(axes), false, std::nullopt};
  }
  static DimSharding open(std::vector<std::string> axes,
                          std::optional<int64_t> priority = std::nullopt) {
    return {std::move(axes), true, priority};
  }

  PropagationGraph graph;
};
} // namespace

TEST_F(Propagation, ForwardAndBackwardThroughElementwise) {
  NodeId a = graph.addNode({8, 16}), b = graph.addNode({8, 16}),
         c = graph.addNode({8, 16});
  elementwise({8, 16}, {a, b});
  elementwise({8, 16}, {b, c});
  user(b, {closed({"x"}), closed({})});
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(a), "<@mesh, [{\"x\"}, {}]>");
  EXPECT_EQ(result(c), "<@mesh, [{\"x\"}, {}]>");
  EXPECT_EQ(graph.origins(c),
            (llvm::SmallVector<int>{static_cast<int>(b),
                                    PropagationGraph::kNoOrigin}));
}

TEST_F(Propagation, MegatronMlp) {
  // x[B,H] data-parallel, w1[H,F] column-split, w2[F,H] row-split.
  NodeId x = graph.addNode({64, 1024}), w1 = graph.addNode({1024, 4096}),
         h = graph.addNode({64, 4096}), r = graph.addNode({64, 4096}),
         w2 = graph.addNode({4096, 1024}), y = graph.addNode({64, 1024});
  user(x, {closed({"x"}), closed({})});
  user(w1, {closed({}), closed({"y"})});
  user(w2, {closed({"y"}), closed({})});
  matmul(x, w1, h, 64, 1024, 4096);
  elementwise({64, 4096}, {h, r});
  matmul(r, w2, y, 64, 4096, 1024);
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(h), "<@mesh, [{\"x\"}, {\"y\"}]>");
  EXPECT_EQ(result(r), "<@mesh, [{\"x\"}, {\"y\"}]>");
  // The contraction over F (sharded on y) does not shard the output's H.
  EXPECT_EQ(result(y), "<@mesh, [{\"x\"}, {}]>");
}

TEST_F(Propagation, ClosedDimsNeverChangeOpenOnesGrow) {
  NodeId a = graph.addNode({8, 16}), b = graph.addNode({8, 16});
  user(a, {closed({"x", "y"}), closed({"z"})});
  user(b, {open({"x"}), closed({})});
  elementwise({8, 16}, {a, b});
  graph.propagate(PropagationStrategy::Aggressive);
  EXPECT_EQ(result(b), "<@mesh, [{\"x\", \"y\", ?}, {}]>");
  EXPECT_EQ(result(a), "<@mesh, [{\"x\", \"y\"}, {\"z\"}]>");
}

TEST_F(Propagation, OpenDimIsNotRewrittenOnConflict) {
  NodeId a = graph.addNode({8}), b = graph.addNode({8});
  user(a, {closed({"y"})});
  user(b, {open({"x"})});
  elementwise({8}, {a, b});
  graph.propagate(PropagationStrategy::Aggressive);
  EXPECT_EQ(result(b), "<@mesh, [{\"x\", ?}]>");
}

TEST_F(Propagation, LowerPriorityNumberWins) {
  // Both want dim 0 of c; p0 is propagated first, p1 cannot override it.
  NodeId a = graph.addNode({8}), b = graph.addNode({8}), c = graph.addNode({8});
  user(a, {open({"y"}, 1)});
  user(b, {open({"x"}, 0)});
  elementwise({8}, {a, c});
  elementwise({8}, {b, c});
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(c), "<@mesh, [{\"x\"}]>");
  // And the reverse priorities give the reverse answer.
  PropagationGraph second = std::move(graph);
  graph = PropagationGraph({{"mesh", llvm::cantFail(DeviceMesh::create(
                                         {"x", "y", "z"}, {2, 4, 2}))}});
  a = graph.addNode({8}), b = graph.addNode({8}), c = graph.addNode({8});
  user(a, {open({"y"}, 0)});
  user(b, {open({"x"}, 1)});
  elementwise({8}, {a, c});
  elementwise({8}, {b, c});
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(c), "<@mesh, [{\"y\"}]>");
}

TEST_F(Propagation, BasicKeepsAgreementAggressiveResolves) {
  auto build = [&](PropagationStrategy strategy) {
    graph = PropagationGraph({{"mesh", llvm::cantFail(DeviceMesh::create(
                                           {"x", "y", "z"}, {2, 4, 2}))}});
    // a (small) says x, b (large) says y, for the shared dim of c.
    NodeId a = graph.addNode({8, 1}), b = graph.addNode({8, 4}),
           c = graph.addNode({8});
    user(a, {closed({"x"}), closed({})});
    user(b, {closed({"y"}), closed({})});
    ShardingRule rule;
    unsigned i = rule.addFactor(8, FactorKind::Parallel);
    unsigned j = rule.addFactor(1, FactorKind::Reduction);
    unsigned k = rule.addFactor(4, FactorKind::Reduction);
    rule.addTensor({{i}, {j}});
    rule.addTensor({{i}, {k}});
    rule.addTensor({{i}});
    graph.addEdge(std::move(rule), {a, b, c}, 2);
    graph.propagate(strategy);
    return result(c);
  };
  EXPECT_EQ(build(PropagationStrategy::Basic), "<@mesh, [{}]>");
  EXPECT_EQ(build(PropagationStrategy::Aggressive), "<@mesh, [{\"y\"}]>");
}

TEST_F(Propagation, BasicTakesTheLongestCompatible) {
  NodeId a = graph.addNode({16}), b = graph.addNode({16}),
         c = graph.addNode({16});
  user(a, {closed({"x"})});
  user(b, {closed({"x", "y"})});
  graph.addEdge(ShardingRule::identity({16}, 3), {a, b, c}, 2);
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(c), "<@mesh, [{\"x\", \"y\"}]>");
}

TEST_F(Propagation, AnAxisShardsOneFactor) {
  // a's rows and b's columns both want x: the larger tensor (b) keeps it,
  // the smaller one is resharded.
  NodeId a = graph.addNode({8, 4}), b = graph.addNode({4, 64}),
         c = graph.addNode({8, 64});
  user(a, {closed({"x"}), closed({})});
  user(b, {closed({}), closed({"x"})});
  matmul(a, b, c, 8, 4, 64);
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(c), "<@mesh, [{}, {\"x\"}]>");
}

TEST_F(Propagation, AnAxisShardsOneFactorLargerFirstOperand) {
  NodeId a = graph.addNode({64, 4}), b = graph.addNode({4, 8}),
         c = graph.addNode({64, 8});
  user(a, {closed({"x"}), closed({})});
  user(b, {closed({}), closed({"x"})});
  matmul(a, b, c, 64, 4, 8);
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(c), "<@mesh, [{\"x\"}, {}]>");
}

TEST_F(Propagation, AReductionFactorGivesWayWhateverTheSizes) {
  // FSDP: a's rows and b's (contracted) rows both want x; b is larger, but
  // splitting the contraction would leave c partial: a's rows keep x.
  NodeId a = graph.addNode({8, 4}), b = graph.addNode({4, 64}),
         c = graph.addNode({8, 64});
  user(a, {closed({"x"}), closed({})});
  user(b, {closed({"x"}), closed({})});
  matmul(a, b, c, 8, 4, 64);
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(c), "<@mesh, [{\"x\"}, {}]>");
}

TEST_F(Propagation, TheOpsOwnResultShardingDecides) {
  // The result says y, the operand x, same size: the result wins.
  NodeId a = graph.addNode({8}), b = graph.addNode({8}), c = graph.addNode({8});
  user(a, {closed({"x"})});
  user(c, {closed({"y"})});
  graph.addEdge(ShardingRule::identity({8}, 3), {a, b, c}, 2);
  graph.propagate(PropagationStrategy::Aggressive);
  EXPECT_EQ(result(b), "<@mesh, [{\"y\"}]>");
}

/// A matmul c = a * b whose k wants y (from a) and whose n wants y from a
/// tensor three elementwise ops below c: the tie-break (n leaves no partial
/// results) must hold whether the matmul or the chain is visited first.
TEST_F(Propagation, AWantFromDownstreamDecidesAsIfItCameFirst) {
  for (bool chainFirst : {false, true}) {
    graph = PropagationGraph({{"mesh", llvm::cantFail(DeviceMesh::create(
                                           {"x", "y", "z"}, {2, 4, 2}))}});
    NodeId a = graph.addNode({8, 16}), b = graph.addNode({16, 32});
    NodeId chain[4];
    for (NodeId &node : chain)
      node = graph.addNode({8, 32});
    user(a, {open({}), open({"y"})});
    user(chain[3], {open({}), closed({"y"})});
    auto addChain = [&] {
      for (int i = 0; i < 3; ++i)
        elementwise({8, 32}, {chain[i], chain[i + 1]});
    };
    if (chainFirst)
      addChain();
    matmul(a, b, chain[0], 8, 16, 32);
    if (!chainFirst)
      addChain();
    graph.propagate(PropagationStrategy::Aggressive);
    EXPECT_EQ(result(b), "<@mesh, [{}, {\"y\"}]>") << chainFirst;
    EXPECT_EQ(result(chain[0]), "<@mesh, [{}, {\"y\"}]>") << chainFirst;
  }
}

/// The larger source wins an axis two factors want even when its want
/// reaches the op through tensors as small as the other's: the sizes that
/// count are those of the tensors the user annotated.
TEST_F(Propagation, ACarriedWantIsAsStrongAsItsSource) {
  NodeId small = graph.addNode({8, 16}), w = graph.addNode({16, 4096}),
         c = graph.addNode({8, 4096}), d = graph.addNode({8, 4096}),
         big = graph.addNode({8, 4096});
  user(small, {open({"y"}), open({})});
  user(big, {open({}), open({"y"})});
  matmul(small, w, c, 8, 16, 4096);
  elementwise({8, 4096}, {c, d});
  // As a sharding_constraint ties its input to its result: operands only.
  graph.addEdge(ShardingRule::identity({8, 4096}, 2), {d, big}, 2);
  graph.propagate(PropagationStrategy::Aggressive);
  EXPECT_EQ(result(w), "<@mesh, [{}, {\"y\"}]>");
  EXPECT_EQ(result(d), "<@mesh, [{}, {\"y\"}]>");
}

TEST_F(Propagation, PriorityBeatsPositionForAnAxis) {
  // a is the first operand and the larger, but b's priority is lower.
  NodeId a = graph.addNode({64, 4}), b = graph.addNode({4, 8}),
         c = graph.addNode({64, 8});
  user(a, {open({"x"}, 1), closed({})});
  user(b, {closed({}), open({"x"}, 0)});
  matmul(a, b, c, 64, 4, 8);
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(c), "<@mesh, [{}, {\"x\"}]>");
}

TEST_F(Propagation, PartialAxesAreTaken) {
  NodeId a = graph.addNode({8}), b = graph.addNode({8});
  user(a, {closed({"x"})});
  user(b, {open({})}, "mesh", {"x"});
  elementwise({8}, {a, b});
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(b), "<@mesh, [{?}], partial={\"x\"}>");
}

TEST_F(Propagation, CompoundDimsThroughReshape) {
  // [8,16] -> [128]: sharding the major dim keeps its sharding.
  NodeId a = graph.addNode({8, 16}), b = graph.addNode({128});
  user(a, {closed({"x"}), closed({})});
  graph.addEdge(ShardingRule::reshape({8, 16}, {128}), {a, b}, 1);
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(b), "<@mesh, [{\"x\"}]>");
}

TEST_F(Propagation, CompoundMinorDimNeedsAFullMajor) {
  NodeId a = graph.addNode({8, 16}), b = graph.addNode({128});
  user(a, {closed({}), closed({"x"})});
  graph.addEdge(ShardingRule::reshape({8, 16}, {128}), {a, b}, 1);
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(b), "<@mesh, [{}]>");

  // With the major factor fully sharded (x*y = 8), the minor one follows.
  NodeId c = graph.addNode({8, 16}), d = graph.addNode({128});
  user(c, {closed({"x", "y"}), closed({"z"})});
  graph.addEdge(ShardingRule::reshape({8, 16}, {128}), {c, d}, 1);
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(d), "<@mesh, [{\"x\", \"y\", \"z\"}]>");
}

TEST_F(Propagation, SplittingADimension) {
  // [128] -> [8, 16]: x (2) divides 8; y after it makes 8 = x*y.
  NodeId a = graph.addNode({128}), b = graph.addNode({8, 16});
  user(a, {closed({"x", "y", "z"})});
  graph.addEdge(ShardingRule::reshape({128}, {8, 16}), {a, b}, 1);
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(b), "<@mesh, [{\"x\", \"y\"}, {\"z\"}]>");

  // An axis larger than the major factor cannot be split (no sub-axes):
  // nothing is propagated.
  NodeId c = graph.addNode({128}), d = graph.addNode({2, 64});
  user(c, {closed({"y"})});
  graph.addEdge(ShardingRule::reshape({128}, {2, 64}), {c, d}, 1);
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(d), "<@mesh, [{}, {}]>");
}

TEST_F(Propagation, NeedReplicationAndPermutationFactors) {
  ShardingRule rule;
  unsigned f = rule.addFactor(8, FactorKind::NeedReplication);
  unsigned g = rule.addFactor(8, FactorKind::Permutation);
  NodeId a = graph.addNode({8, 8}), b = graph.addNode({8, 8});
  user(a, {closed({"x"}), closed({"y"})});
  rule.addTensor({{f}, {g}});
  rule.addTensor({{f}, {g}});
  graph.addEdge(rule, {a, b}, 1);
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(b), "<@mesh, [{}, {}]>");
  NodeId c = graph.addNode({8, 8}), d = graph.addNode({8, 8});
  user(c, {closed({"x"}), closed({"y"})});
  graph.addEdge(rule, {c, d}, 1);
  graph.propagate(PropagationStrategy::Aggressive);
  EXPECT_EQ(result(d), "<@mesh, [{}, {\"y\"}]>");
}

// Identical rules are stored once; rules that differ only in their factors'
// kinds or in which factor makes which dimension stay apart.
TEST_F(Propagation, EdgesKeepTheirOwnRules) {
  auto rule = [](FactorKind kind, bool transposed) {
    ShardingRule r;
    unsigned f = r.addFactor(8, kind), g = r.addFactor(8, FactorKind::Parallel);
    r.addTensor({{f}, {g}});
    r.addTensor(transposed ? TensorFactors{{g}, {f}} : TensorFactors{{f}, {g}});
    return r;
  };
  llvm::SmallVector<NodeId> in, out;
  for (int e = 0; e < 4; ++e) {
    in.push_back(graph.addNode({8, 8}));
    out.push_back(graph.addNode({8, 8}));
    user(in.back(), {closed({"x"}), closed({"y"})});
  }
  graph.addEdge(rule(FactorKind::Parallel, false), {in[0], out[0]}, 1);
  graph.addEdge(rule(FactorKind::NeedReplication, false), {in[1], out[1]}, 1);
  graph.addEdge(rule(FactorKind::Parallel, true), {in[2], out[2]}, 1);
  graph.addEdge(rule(FactorKind::Parallel, false), {in[3], out[3]}, 1);
  graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(out[0]), "<@mesh, [{\"x\"}, {\"y\"}]>");
  EXPECT_EQ(result(out[1]), "<@mesh, [{}, {\"y\"}]>");
  EXPECT_EQ(result(out[2]), "<@mesh, [{\"y\"}, {\"x\"}]>");
  EXPECT_EQ(result(out[3]), "<@mesh, [{\"x\"}, {\"y\"}]>");
}

TEST_F(Propagation, MeshesDoNotMix) {
  NodeId a = graph.addNode({8}), b = graph.addNode({8}), c = graph.addNode({8});
  user(a, {closed({"x"})});
  user(b, {closed({"x"})}, "other");
  graph.addEdge(ShardingRule::identity({8}, 3), {a, b, c}, 2);
  graph.propagate(PropagationStrategy::Aggressive);
  EXPECT_EQ(graph.meshConflicts().size(), 1u);
  EXPECT_FALSE(graph.hasSharding(c));
  EXPECT_EQ(result(c), "<@mesh, [{}]>");
}

TEST_F(Propagation, ReplicatedNodesStayReplicated) {
  NodeId a = graph.addNode({8}), b = graph.addNode({8});
  user(a, {closed({"x"})});
  graph.setReplicated(b, 0);
  elementwise({8}, {a, b});
  graph.propagate(PropagationStrategy::Aggressive);
  EXPECT_EQ(result(b), "<@mesh, [{}]>");
}

TEST_F(Propagation, UnknownMeshOrAxisIsAnError) {
  NodeId a = graph.addNode({8});
  auto err = graph.setUserSharding(a, TensorSharding("nope", {closed({})}));
  EXPECT_NE(llvm::toString(std::move(err)).find("unknown mesh @nope"),
            std::string::npos);
  err = graph.setUserSharding(a, TensorSharding("mesh", {closed({"w"})}));
  EXPECT_NE(llvm::toString(std::move(err)).find("no axis named \"w\""),
            std::string::npos);
}

TEST_F(Propagation, LongChainIsLinear) {
  // Each edge is evaluated a bounded number of times.
  NodeId prev = graph.addNode({64, 64});
  user(prev, {closed({"x"}), closed({})});
  const int kLayers = 2000;
  for (int i = 0; i < kLayers; ++i) {
    NodeId next = graph.addNode({64, 64});
    elementwise({64, 64}, {prev, next});
    prev = next;
  }
  int64_t evaluations = graph.propagate(PropagationStrategy::Basic);
  EXPECT_EQ(result(prev), "<@mesh, [{\"x\"}, {}]>");
  EXPECT_LE(evaluations, 3 * kLayers);
}

TEST_F(Propagation, ALateWantWithdrawsAChainInLinearTime) {
  // A small source splits the rows of a long chain; the last tensor, as
  // large as each link but written by the user, wants its columns. The
  // stronger want walks back up the chain, withdrawing one carriage per
  // link, without starting the round again each time.
  const int kLayers = 2000;
  NodeId small = graph.addNode({64});
  user(small, {open({"x"})});
  std::vector<NodeId> chain;
  for (int i = 0; i <= kLayers; ++i)
    chain.push_back(graph.addNode({64, 64}));
  ShardingRule broadcast;
  unsigned rows = broadcast.addFactor(64, FactorKind::Parallel);
  unsigned columns = broadcast.addFactor(64, FactorKind::Parallel);
  broadcast.addTensor({{rows}});
  broadcast.addTensor({{rows}, {columns}});
  graph.addEdge(std::move(broadcast), {small, chain[0]}, 1);
  for (int i = 0; i < kLayers; ++i)
    elementwise({64, 64}, {chain[i], chain[i + 1]});
  NodeId last = graph.addNode({64, 128});
  user(last, {open({}), closed({"x"})});
  ShardingRule widen;
  unsigned r = widen.addFactor(64, FactorKind::Parallel);
  unsigned c = widen.addFactor(64, FactorKind::Parallel);
  unsigned two = widen.addFactor(2, FactorKind::Parallel);
  widen.addTensor({{r}, {c}});
  widen.addTensor({{r}, {c, two}});
  graph.addEdge(std::move(widen), {chain[kLayers], last}, 1);
  int64_t evaluations = graph.propagate(PropagationStrategy::Aggressive);
  EXPECT_EQ(result(chain[1]), "<@mesh, [{}, {\"x\"}]>");
  EXPECT_EQ(result(chain[kLayers]), "<@mesh, [{}, {\"x\"}]>");
  EXPECT_LE(evaluations, 8 * kLayers);
}

TEST_F(Propagation, AStrongerLateWantReplacesACarriedSharding) {
  // c = a + b: a's rows got "x" from a small vector, b's rows get "y" from
  // a large tensor, later. Aggressive takes the strongest source for the
  // rows, and a gives up what was carried to it, whichever came first.
  for (bool largeFirst : {false, true}) {
    graph = PropagationGraph({{"mesh", llvm::cantFail(DeviceMesh::create(
                                           {"x", "y", "z"}, {2, 4, 2}))}});
    NodeId small = graph.addNode({64}), a = graph.addNode({64, 64}),
           large = graph.addNode({64, 4096}), b = graph.addNode({64, 64}),
           c = graph.addNode({64, 64});
    user(small, {open({"x"})});
    user(large, {open({"y"}), open({})});
    auto rowsOf = [&](NodeId from, NodeId to, int64_t width) {
      ShardingRule rule;
      unsigned rows = rule.addFactor(64, FactorKind::Parallel);
      unsigned columns = rule.addFactor(width, FactorKind::Parallel);
      rule.addTensor(width == 64 && from == small
                         ? TensorFactors{{rows}}
                         : TensorFactors{{rows}, {columns}});
      rule.addTensor({{rows}, {}});
      graph.addEdge(std::move(rule), {from, to}, 1);
    };
    if (largeFirst)
      rowsOf(large, b, 4096);
    rowsOf(small, a, 64);
    elementwise({64, 64}, {a, b, c});
    if (!largeFirst)
      rowsOf(large, b, 4096);
    graph.propagate(PropagationStrategy::Aggressive);
    EXPECT_EQ(result(a), "<@mesh, [{\"y\"}, {}]>") << largeFirst;
    EXPECT_EQ(result(c), "<@mesh, [{\"y\"}, {}]>") << largeFirst;
  }
}
