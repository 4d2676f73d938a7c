//===- TensorShardingTest.cpp - Sharding values and partition specs -------===//

#include "sharding/TensorSharding.h"

#include "gtest/gtest.h"

using namespace spmd;

static DeviceMesh mesh2x4() {
  return llvm::cantFail(DeviceMesh::create({"data", "model"}, {2, 4}));
}

static std::string errorOf(llvm::Error err) {
  return err ? llvm::toString(std::move(err)) : "";
}

TEST(TensorSharding, PrintsSpecSyntax) {
  TensorSharding s("mesh", {{{"data", "model"}, false, {}}, {{}, true, {}}});
  EXPECT_EQ(s.str(), "<@mesh, [{\"data\", \"model\"}, {?}]>");
  TensorSharding t("mesh", {{{"data"}, true, 1}, {}}, {"model"});
  EXPECT_EQ(t.str(), "<@mesh, [{\"data\", ?}p1, {}], replicated={\"model\"}>");
  TensorSharding u("mesh", {{}, {}}, {}, {"model"}, ReductionKind::Max);
  EXPECT_EQ(u.str(), "<@mesh, [{}, {}], partial<max>={\"model\"}>");
  // Axis names are escaped as MLIR prints strings.
  TensorSharding quoted("mesh", {{{"a\"b\\c"}, false, {}}});
  EXPECT_EQ(quoted.str(), "<@mesh, [{\"a\\22b\\\\c\"}]>");
}

TEST(TensorSharding, FromPartitionSpec) {
  DeviceMesh mesh = mesh2x4();
  auto s = TensorSharding::fromPartitionSpec(mesh, "mesh",
                                             {"data", std::nullopt}, 2);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->str(), "<@mesh, [{\"data\"}, {}]>");

  // Axis indices and tuples, as torch_xla accepts them.
  s = TensorSharding::fromPartitionSpec(mesh, "mesh", {{1, "data"}}, 3);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(s->str(), "<@mesh, [{\"model\", \"data\"}, {}, {}]>");

  s = TensorSharding::fromPartitionSpec(mesh, "mesh", {}, 2);
  ASSERT_TRUE(bool(s));
  EXPECT_TRUE(s->isFullyReplicated());
}

TEST(TensorSharding, PartitionSpecErrors) {
  DeviceMesh mesh = mesh2x4();
  auto err = [&](DimSpecs spec, unsigned rank) {
    auto s = TensorSharding::fromPartitionSpec(mesh, "mesh", spec, rank);
    return s ? std::string() : llvm::toString(s.takeError());
  };
  EXPECT_NE(err({"data", "data"}, 2).find("used twice"), std::string::npos);
  EXPECT_NE(err({"nope"}, 1).find("no axis named \"nope\""), std::string::npos);
  EXPECT_NE(err({5}, 1).find("axis index 5"), std::string::npos);
  EXPECT_NE(err({"data", "model"}, 1).find("rank 1"), std::string::npos);
}

TEST(TensorSharding, Verify) {
  DeviceMesh mesh = mesh2x4();
  TensorSharding ok("mesh", {{{"data"}, false, {}}, {}}, {}, {"model"});
  EXPECT_EQ(errorOf(ok.verify(mesh, 2)), "");
  EXPECT_NE(errorOf(ok.verify(mesh, 3)).find("rank 3"), std::string::npos);
  TensorSharding twice("mesh", {{{"data"}, false, {}}, {}}, {"data"});
  EXPECT_NE(errorOf(twice.verify()).find("again in replicated"),
            std::string::npos);
  TensorSharding partialTwice("mesh", {{{"model"}, false, {}}}, {}, {"model"});
  EXPECT_NE(errorOf(partialTwice.verify()).find("again in partial"),
            std::string::npos);
  TensorSharding negative("mesh", {{{"data"}, false, -1}});
  EXPECT_NE(errorOf(negative.verify()).find("negative priority"),
            std::string::npos);
}

TEST(TensorSharding, ReductionNames) {
  for (ReductionKind kind :
       {ReductionKind::Sum, ReductionKind::Max, ReductionKind::Min,
        ReductionKind::MaxNum, ReductionKind::MinNum, ReductionKind::Prod})
    EXPECT_EQ(symbolizeReduction(stringifyReduction(kind)), kind);
  EXPECT_EQ(symbolizeReduction("mean"), std::nullopt);
  EXPECT_EQ(reductionNames(),
            (llvm::SmallVector<llvm::StringRef>{"sum", "max", "min", "maxnum",
                                                "minnum", "prod"}));
}

TEST(TensorSharding, PartialValuesArePendingAsTheirReduction) {
  // A device whose block is all NaN has maxnum NaN: pending as max, the
  // collective would let it win.
  TensorSharding pending("mesh", {{}}, {}, {"x"}, ReductionKind::MaxNum);
  EXPECT_FALSE(static_cast<bool>(pending.verify()));
}

TEST(TensorSharding, CollectiveNames) {
  for (CollectiveKind kind :
       {CollectiveKind::AllGather, CollectiveKind::AllSlice,
        CollectiveKind::AllToAll, CollectiveKind::AllReduce,
        CollectiveKind::ReduceScatter, CollectiveKind::CollectivePermute,
        CollectiveKind::Redistribute, CollectiveKind::Broadcast,
        CollectiveKind::Reduce})
    EXPECT_EQ(symbolizeCollectiveKind(stringifyCollectiveKind(kind)), kind);
  EXPECT_EQ(stringifyCollectiveKind(CollectiveKind::CollectivePermute),
            "collective_permute");
  EXPECT_EQ(symbolizeCollectiveKind("scatter"), std::nullopt);
}
