//===- GspmdShardingTest.cpp - GSPMD sharding strings ---------------------===//

#include "sharding/GspmdSharding.h"
#include "ShardingEnumeration.h"
#include "sharding/ShardLayout.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <numeric>

using namespace spmd;

static GspmdSharding parse(llvm::StringRef text) {
  auto s = GspmdSharding::parse(text);
  if (!s) {
    ADD_FAILURE() << llvm::toString(s.takeError());
    return {};
  }
  return *s;
}

static std::string parseError(llvm::StringRef text) {
  auto s = GspmdSharding::parse(text);
  return s ? "<no error>" : llvm::toString(s.takeError());
}

TEST(GspmdSharding, ParsesEveryForm) {
  EXPECT_EQ(parse("{replicated}").kind, GspmdSharding::Kind::Replicated);
  GspmdSharding maximal = parse("{maximal device=3}");
  EXPECT_EQ(maximal.kind, GspmdSharding::Kind::Maximal);
  EXPECT_EQ(maximal.maximalDevice, 3);

  GspmdSharding explicitList = parse("{devices=[2,1]1,0}");
  EXPECT_EQ(explicitList.tileShape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(explicitList.devices, (std::vector<int64_t>{1, 0}));
  EXPECT_FALSE(explicitList.lastTileDimReplicate);

  GspmdSharding iota = parse("{devices=[2,1,4]<=[8] last_tile_dim_replicate}");
  EXPECT_TRUE(iota.lastTileDimReplicate);
  EXPECT_EQ(iota.devices, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));

  // iota([2,4]) transposed: [[0,4],[1,5],[2,6],[3,7]] read row-major.
  GspmdSharding transposed = parse("{devices=[4,2]<=[2,4]T(1,0)}");
  EXPECT_EQ(transposed.devices, (std::vector<int64_t>{0, 4, 1, 5, 2, 6, 3, 7}));
  GspmdSharding threeD = parse("{devices=[2,2,2]<=[2,2,2]T(2,0,1)}");
  EXPECT_EQ(threeD.devices, (std::vector<int64_t>{0, 2, 4, 6, 1, 3, 5, 7}));
}

TEST(GspmdSharding, PrintsCanonically) {
  EXPECT_EQ(parse("{ devices=[2,1]0,1 }").str(), "{devices=[2,1]<=[2]}");
  EXPECT_EQ(parse("{devices=[2,1]1,0}").str(), "{devices=[2,1]1,0}");
  EXPECT_EQ(parse("{devices=[1,2,4]<=[8] last_tile_dim_replicate}").str(),
            "{devices=[1,2,4]<=[8] last_tile_dim_replicate}");
  EXPECT_EQ(parse("{devices=[4,2]<=[2,4]T(1,0)}").str(),
            "{devices=[4,2]0,4,1,5,2,6,3,7}");
  EXPECT_EQ(parse("{maximal device=1}").str(), "{maximal device=1}");
}

TEST(GspmdSharding, Errors) {
  EXPECT_NE(parseError("replicated").find("expected '{'"), std::string::npos);
  EXPECT_NE(parseError("{devices=[2,2]0,1,2}").find("4 tiles but 3"),
            std::string::npos);
  EXPECT_NE(parseError("{devices=[2]0,0}").find("appears twice"),
            std::string::npos);
  EXPECT_NE(parseError("{devices=[2,2]<=[4]T(0,0)}").find("permute"),
            std::string::npos);
  EXPECT_NE(parseError("{devices=[0]}").find("sizes >= 1"), std::string::npos);
  EXPECT_NE(parseError("{tiles=[2]0,1}").find("'replicated', 'maximal'"),
            std::string::npos);
  EXPECT_NE(parseError("{replicated} x").find("end of the string"),
            std::string::npos);
  EXPECT_NE(parseError("{maximal device=x}").find("device number"),
            std::string::npos);
}

TEST(GspmdSharding, ToSpmd) {
  auto [mesh, sharding] = llvm::cantFail(
      parse("{devices=[2,1,4]<=[8] last_tile_dim_replicate}").toSpmd(2, "m"));
  EXPECT_EQ(mesh.str(), "<[\"t0\"=2, \"r\"=4]>");
  EXPECT_EQ(sharding.str(), "<@m, [{\"t0\"}, {}]>");

  auto rankError = parse("{devices=[2,1]0,1}").toSpmd(3, "m");
  ASSERT_FALSE(bool(rankError));
  EXPECT_NE(llvm::toString(rankError.takeError()).find("rank 3"),
            std::string::npos);

  auto [mesh1, replicated] =
      llvm::cantFail(parse("{maximal device=2}").toSpmd(2, "m"));
  EXPECT_TRUE(replicated.isFullyReplicated());
}

TEST(GspmdSharding, PartialHasNoString) {
  DeviceMesh mesh = llvm::cantFail(DeviceMesh::create({"x"}, {2}));
  TensorSharding s("mesh", {{}}, {}, {"x"});
  EXPECT_FALSE(bool(GspmdSharding::fromSpmd(s, mesh)));
  llvm::consumeError(GspmdSharding::fromSpmd(s, mesh).takeError());
}

/// Every sharding of a 2-D tensor on a (permuted) 2x2x2 mesh survives
/// spmd -> GSPMD string -> spmd: every device holds the same elements.
TEST(GspmdSharding, RoundTripKeepsEveryDevicesShard) {
  DeviceMesh mesh = llvm::cantFail(
      DeviceMesh::create({"a", "b", "c"}, {2, 2, 2}, {3, 1, 7, 5, 0, 2, 4, 6}));
  std::vector<int64_t> shape = {8, 6};
  for (const TensorSharding &s : spmd::testing::allShardings(mesh, 2)) {
    SCOPED_TRACE(s.str());
    GspmdSharding gspmd = llvm::cantFail(GspmdSharding::fromSpmd(s, mesh));
    GspmdSharding reparsed = parse(gspmd.str());
    EXPECT_EQ(reparsed, gspmd) << gspmd.str();
    auto [newMesh, newSharding] = llvm::cantFail(reparsed.toSpmd(2, "mesh"));
    ShardLayout before = llvm::cantFail(ShardLayout::get(s, mesh, shape));
    ShardLayout after =
        llvm::cantFail(ShardLayout::get(newSharding, newMesh, shape));
    ASSERT_EQ(newMesh.numDevices(), s.isFullyReplicated() ? 1 : 8);
    if (s.isFullyReplicated())
      continue;
    for (int64_t device = 0; device < 8; ++device)
      EXPECT_EQ(before.sliceOf(device), after.sliceOf(device));
  }
}

/// Each device holds the same elements under `a` on `meshA` as under `b`
/// on `meshB`.
static void expectSameLayout(const TensorSharding &a, const DeviceMesh &meshA,
                             const TensorSharding &b, const DeviceMesh &meshB,
                             std::vector<int64_t> shape) {
  ShardLayout la = llvm::cantFail(ShardLayout::get(a, meshA, shape));
  ShardLayout lb = llvm::cantFail(ShardLayout::get(b, meshB, shape));
  ASSERT_EQ(meshA.numDevices(), meshB.numDevices());
  for (int64_t device = 0; device < meshA.numDevices(); ++device)
    EXPECT_EQ(la.sliceOf(device), lb.sliceOf(device))
        << a.str() << " vs " << b.str() << " on device " << device;
}

TEST(GspmdSharding, CommonMeshRefinesIotaOrders) {
  std::vector<GspmdSharding> shardings = {
      parse("{devices=[2,4]<=[8]}"),
      parse("{devices=[4,2]<=[8]}"),
      parse("{devices=[4,2]<=[2,4]T(1,0)}"),
      parse("{devices=[2,1,4]<=[8] last_tile_dim_replicate}"),
      parse("{devices=[1,8]0,1,2,3,4,5,6,7}"),
      parse("{replicated}")};
  std::vector<unsigned> ranks(shardings.size(), 2);
  auto [mesh, common] =
      llvm::cantFail(GspmdSharding::toSpmdCommon(shardings, ranks, "mesh"));
  EXPECT_EQ(mesh.str(), "<[\"axis0\"=2, \"axis1\"=2, \"axis2\"=2]>");
  EXPECT_EQ(common[0].str(), "<@mesh, [{\"axis0\"}, {\"axis1\", \"axis2\"}]>");
  EXPECT_EQ(common[1].str(), "<@mesh, [{\"axis0\", \"axis1\"}, {\"axis2\"}]>");
  EXPECT_EQ(common[2].str(), "<@mesh, [{\"axis1\", \"axis2\"}, {\"axis0\"}]>");
  EXPECT_EQ(common[3].str(), "<@mesh, [{\"axis0\"}, {}]>");
  EXPECT_EQ(common[5].str(), "<@mesh, [{}, {}]>");
  // Every device holds what the string alone says it holds.
  for (size_t i = 0; i + 1 < shardings.size(); ++i) {
    auto [own, ownSharding] = llvm::cantFail(shardings[i].toSpmd(2, "mesh"));
    expectSameLayout(common[i], mesh, ownSharding, own, {16, 24});
  }
}

/// `s` with its device order written out as a list.
static std::string explicitForm(const GspmdSharding &s) {
  std::string text = "{devices=[";
  for (auto [i, size] : llvm::enumerate(s.tileShape))
    text += (i ? "," : "") + std::to_string(size);
  text += "]";
  for (auto [i, device] : llvm::enumerate(s.devices))
    text += (i ? "," : "") + std::to_string(device);
  return text + (s.lastTileDimReplicate ? " last_tile_dim_replicate}" : "}");
}

// An explicit list that spells a transposed iota shares the common mesh as
// the iota form does (importers write either; two meshes kept the
// tensors apart: "relates tensors sharded on different meshes").
TEST(GspmdSharding, ExplicitListsOfIotaOrdersShareTheCommonMesh) {
  const std::vector<std::vector<int64_t>> reshapes = {
      {8}, {2, 4}, {4, 2}, {2, 2, 2}, {2, 3, 2}, {3, 4}, {2, 2, 3}};
  int checked = 0;
  for (const auto &reshape : reshapes) {
    std::vector<int64_t> perm(reshape.size());
    std::iota(perm.begin(), perm.end(), 0);
    int64_t n = 1;
    for (int64_t size : reshape)
      n *= size;
    do {
      std::string order = "<=[";
      for (auto [i, size] : llvm::enumerate(reshape))
        order += (i ? "," : "") + std::to_string(size);
      order += "]T(";
      for (auto [i, d] : llvm::enumerate(perm))
        order += (i ? "," : "") + std::to_string(d);
      order += ")";
      for (int64_t rows : {int64_t(1), int64_t(2), n}) {
        if (n % rows)
          continue;
        GspmdSharding iota =
            parse("{devices=[" + std::to_string(rows) + "," +
                  std::to_string(n / rows) + "]" + order + "}");
        GspmdSharding list = parse(explicitForm(iota));
        SCOPED_TRACE(iota.str() + " as " + list.str());
        std::vector<unsigned> ranks = {2, 2};
        // Tiles that cut an iota dimension unevenly have no common mesh
        // in either form.
        auto iotaOnly =
            GspmdSharding::toSpmdCommon({iota, iota}, ranks, "mesh");
        if (!iotaOnly) {
          llvm::consumeError(iotaOnly.takeError());
          continue;
        }
        ++checked;
        auto both = GspmdSharding::toSpmdCommon({iota, list}, ranks, "mesh");
        ASSERT_TRUE(bool(both)) << llvm::toString(both.takeError());
        auto &[mesh, common] = *both;
        EXPECT_EQ(common[0].str(), common[1].str());
        auto [own, ownSharding] = llvm::cantFail(list.toSpmd(2, "mesh"));
        expectSameLayout(common[1], mesh, ownSharding, own, {24, 24});
      }
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
  EXPECT_GT(checked, 40);
}

TEST(GspmdSharding, CommonMeshFailures) {
  std::vector<unsigned> ranks = {2, 2};
  // 0,3,1,2 is no transposed iota (0,2,1,3 is <=[2,2]T(1,0)).
  auto explicitList = GspmdSharding::toSpmdCommon(
      {parse("{devices=[2,2]0,3,1,2}"), parse("{devices=[2,2]<=[4]}")}, ranks,
      "mesh");
  ASSERT_FALSE(bool(explicitList));
  EXPECT_NE(llvm::toString(explicitList.takeError()).find("not an iota order"),
            std::string::npos);
  auto counts = GspmdSharding::toSpmdCommon(
      {parse("{devices=[2,1]<=[2]}"), parse("{devices=[2,2]<=[4]}")}, ranks,
      "mesh");
  ASSERT_FALSE(bool(counts));
  EXPECT_NE(llvm::toString(counts.takeError()).find("different device counts"),
            std::string::npos);
  auto noChain = GspmdSharding::toSpmdCommon(
      {parse("{devices=[2,3]<=[6]}"), parse("{devices=[3,2]<=[6]}")}, ranks,
      "mesh");
  ASSERT_FALSE(bool(noChain));
  EXPECT_NE(llvm::toString(noChain.takeError()).find("no common refinement"),
            std::string::npos);
}

// Device counts are bounded before any device list is built (huge tile
// shapes and iota lists ran out of memory).
TEST(GspmdSharding, HugeDeviceCountsAreRefused) {
  for (const char *text :
       {"{devices=[65536,65536]<=[4294967296]}",
        "{devices=[2,2]<=[9223372036854775807,2]}",
        "{devices=[4611686018427387904,4]0,1}",
        "{devices=[100000000,1]<=[100000000]}"}) {
    llvm::Expected<GspmdSharding> parsed = GspmdSharding::parse(text);
    ASSERT_FALSE(bool(parsed)) << text;
    EXPECT_NE(llvm::toString(parsed.takeError()).find("devices"),
              std::string::npos);
  }
}
