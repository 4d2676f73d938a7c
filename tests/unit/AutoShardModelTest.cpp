//===- AutoShardModelTest.cpp - The auto-sharding integer program ---------===//
//
// CBC's choice against every choice tried, on random graphs of up to 8
// nodes under the same model: with and without a memory budget, with
// ties, and with budgets nothing fits.
//
//===----------------------------------------------------------------------===//

#include "partitioner/AutoShardModel.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <random>

using namespace spmd;

namespace {

/// A random graph: a chain with extra forward edges (as an op reads
/// values from further back), costs drawn from few values so that ties
/// happen, and live sets of consecutive nodes.
ShardingProblem randomProblem(std::mt19937 &rng, unsigned nodes) {
  ShardingProblem p;
  auto pick = [&](int n) { return int(rng() % unsigned(n)); };
  for (unsigned v = 0; v < nodes; ++v) {
    ShardingProblem::Node node;
    ShardingProblem::Value value{v, {}};
    int strategies = 1 + pick(4);
    for (int i = 0; i < strategies; ++i) {
      node.cost.push_back(pick(6) * 0.5e-3);
      value.bytes.push_back(double(1 + pick(8)) * 1024);
    }
    p.nodes.push_back(node);
    p.values.push_back(value);
    // Some nodes make a second value, live along with the first.
    if (pick(3) == 0) {
      for (double &b : value.bytes)
        b = double(pick(4)) * 1024;
      p.values.push_back(value);
    }
  }
  for (unsigned v = 1; v < nodes; ++v)
    for (unsigned u = 0; u < v; ++u) {
      if (u + 1 != v && pick(4) != 0)
        continue;
      ShardingProblem::Edge e{u, v, {}};
      for (size_t i = 0; i < p.strategies(u) * p.strategies(v); ++i)
        e.cost.push_back(pick(5) * 1e-3);
      p.edges.push_back(e);
    }
  for (unsigned v = 0; v < nodes; ++v) {
    ShardingProblem::LiveSet live;
    for (unsigned x = 0; x < p.values.size(); ++x)
      if (p.values[x].node >= v && p.values[x].node < v + 3)
        live.values.push_back(x);
    live.fixedBytes = 512;
    p.liveSets.push_back(live);
  }
  return p;
}

TEST(AutoShardModel, CbcEqualsExhaustiveEnumeration) {
  std::mt19937 rng(20261124);
  int budgeted = 0, infeasible = 0;
  for (int round = 0; round < 300; ++round) {
    ShardingProblem p = randomProblem(rng, 1 + round % 8);
    if (round % 3 != 0) {
      // Between the smallest and the largest peak any choice could have.
      p.memoryBudget = 512 + double(rng() % 20) * 1024;
      ++budgeted;
    }
    SCOPED_TRACE("round " + std::to_string(round));
    llvm::Expected<ShardingSolution> exact = solveExhaustively(p);
    llvm::Expected<ShardingSolution> cbc = solveWithCbc(p, 60);
    ASSERT_EQ(bool(exact), bool(cbc));
    if (!exact) {
      ++infeasible;
      std::string a = llvm::toString(exact.takeError()),
                  b = llvm::toString(cbc.takeError());
      EXPECT_EQ(a, b);
      EXPECT_NE(a.find("fits the memory budget"), std::string::npos) << a;
      // The smallest budget it names fits, and one byte less does not.
      size_t at = a.find("the smallest that fits is ");
      ASSERT_NE(at, std::string::npos) << a;
      double least = std::stod(a.substr(at + 26));
      p.memoryBudget = least;
      EXPECT_TRUE(bool(solveExhaustively(p))) << a;
      p.memoryBudget = least - 1;
      llvm::Expected<ShardingSolution> below = solveExhaustively(p);
      EXPECT_FALSE(bool(below)) << a;
      if (!below)
        llvm::consumeError(below.takeError());
      continue;
    }
    EXPECT_EQ(cbc->status, ShardingSolution::Status::Optimal);
    EXPECT_NEAR(cbc->cost, exact->cost, 1e-9);
    EXPECT_EQ(cbc->cost, evaluate(p, cbc->choice));
    EXPECT_LE(peakMemory(p, cbc->choice), p.memoryBudget);
    // Where the cheapest choice is unique, it is the same choice.
    int cheapest = 0;
    std::vector<unsigned> choice(p.nodes.size(), 0);
    while (true) {
      if (std::abs(evaluate(p, choice) - exact->cost) < 1e-12)
        ++cheapest;
      size_t v = choice.size();
      while (v > 0 && ++choice[v - 1] == p.strategies(v - 1))
        choice[--v] = 0;
      if (v == 0)
        break;
    }
    if (cheapest == 1) {
      EXPECT_EQ(cbc->choice, exact->choice);
    }
  }
  // The rounds covered budgets that bind and ones nothing fits.
  EXPECT_GT(budgeted, 100);
  EXPECT_GT(infeasible, 5);
}

TEST(AutoShardModel, TimeLimitStillGivesAChoiceWithinTheBudget) {
  // Too large to solve in a microsecond: the greedy start is the answer,
  // and it respects the budget.
  std::mt19937 rng(7);
  ShardingProblem p;
  for (unsigned r = 0; r < 20; ++r) {
    ShardingProblem part = randomProblem(rng, 8);
    unsigned offset = p.nodes.size(), values = p.values.size();
    p.nodes.insert(p.nodes.end(), part.nodes.begin(), part.nodes.end());
    for (auto value : part.values) {
      value.node += offset;
      p.values.push_back(value);
    }
    for (auto e : part.edges) {
      e.from += offset;
      e.to += offset;
      p.edges.push_back(e);
    }
    for (auto live : part.liveSets) {
      for (unsigned &x : live.values)
        x += values;
      p.liveSets.push_back(live);
    }
  }
  // Tight: the peak of each node's smallest strategy.
  std::vector<unsigned> smallest(p.nodes.size(), 0);
  for (const auto &value : p.values)
    for (unsigned s = 0; s < value.bytes.size(); ++s)
      if (value.bytes[s] < value.bytes[smallest[value.node]])
        smallest[value.node] = s;
  p.memoryBudget = peakMemory(p, smallest) + 1024;
  auto rushed = solveWithCbc(p, 1e-6);
  ASSERT_TRUE(bool(rushed)) << llvm::toString(rushed.takeError());
  EXPECT_EQ(rushed->status, ShardingSolution::Status::TimeLimit);
  EXPECT_LE(peakMemory(p, rushed->choice), p.memoryBudget);
  EXPECT_EQ(rushed->cost, evaluate(p, rushed->choice));
  auto solved = solveWithCbc(p, 60);
  ASSERT_TRUE(bool(solved));
  EXPECT_LE(solved->cost, rushed->cost);
}

TEST(AutoShardModel, BudgetChangesTheChoice) {
  // Replicated (fast, big) or sharded (slower, small), twice.
  ShardingProblem p;
  p.nodes = {{{1.0, 2.0}}, {{1.0, 2.0}}};
  p.values = {{0, {4000, 1000}}, {1, {4000, 1000}}};
  p.edges = {{0, 1, {0, 0.5, 0.5, 0}}};
  p.liveSets = {{{0, 1}, 0}};
  auto unlimited = solveWithCbc(p, 10);
  ASSERT_TRUE(bool(unlimited));
  EXPECT_EQ(unlimited->choice, (std::vector<unsigned>{0, 0}));
  EXPECT_DOUBLE_EQ(unlimited->cost, 2.0);
  p.memoryBudget = 5000; // one may stay replicated: cost 1 + 2 + 0.5
  auto half = solveWithCbc(p, 10);
  ASSERT_TRUE(bool(half));
  EXPECT_DOUBLE_EQ(half->cost, 3.5);
  EXPECT_LE(peakMemory(p, half->choice), 5000);
  p.memoryBudget = 1999;
  auto none = solveWithCbc(p, 10);
  ASSERT_FALSE(bool(none));
  EXPECT_EQ(llvm::toString(none.takeError()),
            "no choice of shardings fits the memory budget of 1999 bytes per "
            "device; the smallest that fits is 2000 bytes");
}

TEST(AutoShardModel, NoFitNamesTheSmallestBudget) {
  // Each node's leanest strategy alone (0, then 0) needs a 1000-byte copy
  // between them: 1190 bytes. Node 1's other strategy needs none: 200.
  ShardingProblem p;
  p.nodes = {{{1.0, 1.0}}, {{1.0, 1.0}}};
  p.values = {{0, {100, 150}}, {1, {90, 100}}};
  p.edges = {{0, 1, {0, 0, 0, 0}}};
  ShardingProblem::LiveSet live{{0, 1}, 0};
  live.edgeTerms = {{0, {1000, 0, 1000, 1000}}};
  p.liveSets = {live};
  p.memoryBudget = 150;
  for (bool exhaustive : {false, true}) {
    auto none = exhaustive ? solveExhaustively(p) : solveWithCbc(p, 10);
    ASSERT_FALSE(bool(none));
    EXPECT_EQ(llvm::toString(none.takeError()),
              "no choice of shardings fits the memory budget of 150 bytes per "
              "device; the smallest that fits is 200 bytes");
  }
}

TEST(AutoShardModel, CostsTooSmallToScaleByTheirInverse) {
  // 1e6 / 2e-320 overflows: CBC was handed infinite coefficients and
  // aborted (its objective must stay below 1e25).
  ShardingProblem p;
  p.nodes = {{{4e-320, 1e-320}}, {{1e-320, 3e-320}}};
  p.edges = {{0, 1, {0, 1e-320, 1e-320, 0}}};
  auto solved = solveWithCbc(p, 10);
  ASSERT_TRUE(bool(solved)) << llvm::toString(solved.takeError());
  EXPECT_EQ(solved->choice, (std::vector<unsigned>{1, 0}));
}

TEST(AutoShardModel, CostsThatAreNotFiniteAreAnError) {
  ShardingProblem p;
  p.nodes = {{{std::numeric_limits<double>::infinity(), 1.0}}};
  auto solved = solveWithCbc(p, 10);
  ASSERT_FALSE(bool(solved));
  EXPECT_EQ(llvm::toString(solved.takeError()),
            "a modelled cost is not a finite number of seconds");
  p.nodes = {{{std::nan(""), 1.0}}};
  EXPECT_FALSE(bool(solveWithCbc(p, 10)));
}

TEST(AutoShardModel, EnumerationStopsAtItsTimeLimit) {
  // 10^7 choices: seconds to try them all, the best so far at the limit.
  ShardingProblem p;
  for (unsigned v = 0; v < 7; ++v) {
    ShardingProblem::Node node;
    for (unsigned s = 0; s < 10; ++s)
      node.cost.push_back(double(10 - s));
    p.nodes.push_back(node);
    if (v > 0)
      p.edges.push_back({v - 1, v, std::vector<double>(100, 1.0)});
  }
  auto start = std::chrono::steady_clock::now();
  auto rushed = solveExhaustively(p, 0.05);
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  ASSERT_TRUE(bool(rushed)) << llvm::toString(rushed.takeError());
  EXPECT_EQ(rushed->status, ShardingSolution::Status::TimeLimit);
  EXPECT_EQ(rushed->cost, evaluate(p, rushed->choice));
  EXPECT_LT(seconds, 2.0);
}

TEST(AutoShardModel, NoTimeLeftTakesTheGreedyChoice) {
  ShardingProblem p;
  p.nodes = {{{1.0, 2.0}}, {{1.0, 2.0}}};
  p.values = {{0, {4000, 1000}}, {1, {4000, 1000}}};
  p.edges = {{0, 1, {0, 0.5, 0.5, 0}}};
  p.liveSets = {{{0, 1}, 0}};
  p.memoryBudget = 5000;
  auto rushed = solveWithCbc(p, 0);
  ASSERT_TRUE(bool(rushed)) << llvm::toString(rushed.takeError());
  EXPECT_EQ(rushed->status, ShardingSolution::Status::TimeLimit);
  EXPECT_LE(peakMemory(p, rushed->choice), 5000);
}

} // namespace

#include "partitioner/AutoShardStrategies.h"

namespace {

/// matmul C[i,k] += A[i,j] * B[j,k] with i=64, j=1024, k=4096.
ShardingRule matmulRule() {
  ShardingRule rule;
  unsigned i = rule.addFactor(64, FactorKind::Parallel);
  unsigned j = rule.addFactor(1024, FactorKind::Reduction);
  unsigned k = rule.addFactor(4096, FactorKind::Parallel);
  rule.addTensor({{i}, {j}});
  rule.addTensor({{j}, {k}});
  rule.addTensor({{i}, {k}});
  return rule;
}

TEST(AutoShardStrategies, MatmulOnATwoByFourMesh) {
  DeviceMesh mesh = llvm::cantFail(DeviceMesh::create({"data", "model"}, {2, 4}));
  AxisCosts costs = AxisCosts::uniform(mesh, 1e-9);
  std::vector<std::vector<int64_t>> shapes = {{64, 1024}, {1024, 4096},
                                              {64, 4096}};
  std::vector<OpStrategy> all =
      enumerateStrategies(mesh, matmulRule(), shapes, 2, 4, 2, costs);
  // Each axis: none or one of three factors (4 x 4), all dividing.
  ASSERT_EQ(all.size(), 16u);
  const OpStrategy &replicated = all.front();
  EXPECT_TRUE(llvm::all_of(replicated.factorAxes,
                           [](const AxisList &a) { return a.empty(); }));
  EXPECT_DOUBLE_EQ(replicated.computeSeconds, 2.0 * 64 * 1024 * 4096 * 1e-11);
  EXPECT_DOUBLE_EQ(replicated.resultBytes, 64.0 * 4096 * 4);
  // Megatron's first matmul: i over data, k over model.
  auto megatron = llvm::find_if(all, [](const OpStrategy &s) {
    return s.factorAxes[0] == AxisList{0} && s.factorAxes[2] == AxisList{1};
  });
  ASSERT_NE(megatron, all.end());
  EXPECT_DOUBLE_EQ(megatron->computeSeconds,
                   replicated.computeSeconds / 8);
  EXPECT_DOUBLE_EQ(megatron->resultBytes, 32.0 * 1024 * 4);
  EXPECT_EQ(megatron->tensors[1].dims[1], (llvm::SmallVector<AxisIndex, 2>{1}));
  EXPECT_TRUE(megatron->tensors[2].partial.empty());
  // The contracted dimension over model: the result is pending over it.
  auto rowSplit = llvm::find_if(all, [](const OpStrategy &s) {
    return s.factorAxes[1] == AxisList{1} && s.factorAxes[0].empty() &&
           s.factorAxes[2].empty();
  });
  ASSERT_NE(rowSplit, all.end());
  EXPECT_EQ(rowSplit->tensors[2].partial, (llvm::SmallVector<AxisIndex, 2>{1}));
  EXPECT_EQ(rowSplit->tensors[0].dims[1], (llvm::SmallVector<AxisIndex, 2>{1}));

  // Resolving it: an all_reduce of 64x4096 f32 over model (4 devices),
  // 2 * 3/4 of the bytes per device; over a DCN axis 10 times slower.
  ReshardPlanCache cache;
  ShardState done = rowSplit->tensors[2];
  done.partial.clear();
  double ici = reshardSeconds(cache, mesh, shapes[2], 4, rowSplit->tensors[2],
                              done, costs);
  EXPECT_DOUBLE_EQ(ici, 2 * 0.75 * 64 * 4096 * 4 * 1e-9);
  AxisCosts dcn = AxisCosts::uniform(mesh, 1e-9, {false, true}, 10);
  EXPECT_DOUBLE_EQ(reshardSeconds(cache, mesh, shapes[2], 4,
                                  rowSplit->tensors[2], done, dcn),
                   10 * ici);
  EXPECT_EQ(reshardSeconds(cache, mesh, shapes[2], 4, done, done, costs), 0);
}

TEST(AutoShardStrategies, FactorsThatDoNotDivideAndNeedReplication) {
  DeviceMesh mesh = llvm::cantFail(DeviceMesh::create({"x"}, {4}));
  ShardingRule rule;
  unsigned a = rule.addFactor(6, FactorKind::Parallel);     // 4 does not divide
  unsigned b = rule.addFactor(8, FactorKind::NeedReplication);
  unsigned c = rule.addFactor(12, FactorKind::Parallel);
  rule.addTensor({{a}, {b}, {c}});
  rule.addTensor({{a}, {b}, {c}});
  std::vector<OpStrategy> all = enumerateStrategies(
      mesh, rule, {{6, 8, 12}, {6, 8, 12}}, 1, 4, 1,
      AxisCosts::uniform(mesh, 1e-9));
  // Replicated, and x over c.
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].factorAxes[c], AxisList{0});
  EXPECT_EQ(all[1].tensors[1].dims[2], (llvm::SmallVector<AxisIndex, 2>{0}));
}

TEST(AutoShardStrategies, ManyAxesAreSearchedNotEnumerated) {
  // 4^9 choices for a matmul on 9 axes: a beam over the axes returns the
  // replicated strategy and 63 of the least compute (each axis used), not
  // every valid one.
  std::vector<std::string> names;
  for (int a = 0; a < 9; ++a)
    names.push_back("a" + std::to_string(a));
  DeviceMesh mesh = llvm::cantFail(
      DeviceMesh::create(names, std::vector<int64_t>(9, 2)));
  ShardingRule rule;
  unsigned i = rule.addFactor(64, FactorKind::Parallel);
  unsigned j = rule.addFactor(64, FactorKind::Reduction);
  unsigned k = rule.addFactor(64, FactorKind::Parallel);
  rule.addTensor({{i}, {j}});
  rule.addTensor({{j}, {k}});
  rule.addTensor({{i}, {k}});
  std::vector<std::vector<int64_t>> shapes = {{64, 64}, {64, 64}, {64, 64}};
  AxisCosts costs = AxisCosts::uniform(mesh, 1e-9);
  std::vector<OpStrategy> found =
      enumerateStrategies(mesh, rule, shapes, 2, 4, 2, costs);
  ASSERT_EQ(found.size(), 64u);
  EXPECT_TRUE(llvm::all_of(found.front().factorAxes,
                           [](const AxisList &axes) { return axes.empty(); }));
  double whole = found.front().computeSeconds;
  for (const OpStrategy &s : llvm::drop_begin(found)) {
    EXPECT_DOUBLE_EQ(s.computeSeconds, whole / 512);
    for (const AxisList &axes : s.factorAxes)
      EXPECT_LE(axes.size(), 6u); // 2^6 divides 64
  }
  // Without reductions split (an op without a combiner), none pends.
  StrategySearch whole_reductions;
  whole_reductions.splitReductions = false;
  for (const OpStrategy &s :
       enumerateStrategies(mesh, rule, shapes, 2, 4, 2, costs,
                           whole_reductions)) {
    EXPECT_TRUE(s.factorAxes[j].empty());
    EXPECT_TRUE(s.tensors[2].partial.empty());
  }
}

} // namespace
