//===- ShardingRuleTest.cpp - Factor rules --------------------------------===//

#include "sharding/ShardingRule.h"

#include "gtest/gtest.h"

using namespace spmd;

TEST(ShardingRule, Identity) {
  EXPECT_EQ(ShardingRule::identity({8, 16}, 3).str(2),
            "([i, j], [i, j]) -> ([i, j]) {i=8, j=16}");
}

TEST(ShardingRule, PrintsKinds) {
  ShardingRule rule;
  unsigned i = rule.addFactor(8, FactorKind::Parallel);
  unsigned j = rule.addFactor(16, FactorKind::Reduction);
  unsigned k = rule.addFactor(4, FactorKind::Parallel);
  rule.addTensor({{i}, {j}});
  rule.addTensor({{j}, {k}});
  rule.addTensor({{i}, {k}});
  EXPECT_EQ(rule.str(2),
            "([i, j], [j, k]) -> ([i, k]) {i=8, j=16, k=4} reduction={j}");
}

TEST(ShardingRule, ReshapeCollapse) {
  EXPECT_EQ(ShardingRule::reshape({8, 16}, {128}).str(1),
            "([i, j]) -> ([i,j]) {i=8, j=16}");
}

TEST(ShardingRule, ReshapeExpand) {
  EXPECT_EQ(ShardingRule::reshape({128}, {8, 16}).str(1),
            "([i,j]) -> ([i, j]) {i=8, j=16}");
}

TEST(ShardingRule, ReshapeRegroup) {
  // 2x6 -> 4x3 = (2)(2,3) -> (2,2)(3).
  EXPECT_EQ(ShardingRule::reshape({2, 6}, {4, 3}).str(1),
            "([i, j,k]) -> ([i,j, k]) {i=2, j=2, k=3}");
}

TEST(ShardingRule, ReshapeUnitDims) {
  EXPECT_EQ(ShardingRule::reshape({1, 8, 1}, {8}).str(1),
            "([1, i, 1]) -> ([i]) {i=8}");
  EXPECT_EQ(ShardingRule::reshape({4}, {1, 4, 1}).str(1),
            "([i]) -> ([1, i, 1]) {i=4}");
}

TEST(ShardingRule, ReshapeWithoutCommonFactorsReplicates) {
  // 6x10 -> 4x15: no common factorisation into contiguous pieces.
  EXPECT_EQ(ShardingRule::reshape({6, 10}, {4, 15}).str(1),
            "([i, k]) -> ([j, l]) {i=6, j=4, k=10, l=15} "
            "need_replication={i, j, k, l}");
  // The matched prefix keeps its factor.
  EXPECT_EQ(ShardingRule::reshape({2, 6, 10}, {2, 4, 15}).str(1),
            "([i, j, l]) -> ([i, k, m]) {i=2, j=6, k=4, l=10, m=15} "
            "need_replication={j, k, l, m}");
}
