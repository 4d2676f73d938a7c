//===- ShardLayoutTest.cpp - Shard shapes, offsets and owners -------------===//

#include "sharding/ShardLayout.h"
#include "ShardingEnumeration.h"

#include "llvm/Support/MathExtras.h"
#include "gtest/gtest.h"

#include <set>

using namespace spmd;
using spmd::testing::allShardings;

static ShardLayout layoutOf(const TensorSharding &s, const DeviceMesh &mesh,
                            std::vector<int64_t> shape) {
  return llvm::cantFail(ShardLayout::get(s, mesh, shape));
}

TEST(ShardLayout, EvenSplit) {
  DeviceMesh mesh = llvm::cantFail(DeviceMesh::create({"data", "model"}, {2, 4}));
  TensorSharding s("mesh", {{{"data"}, false, {}}, {{"model"}, false, {}}});
  ShardLayout layout = layoutOf(s, mesh, {8, 16});
  EXPECT_EQ(layout.localShape(), (llvm::SmallVector<int64_t>{4, 4}));
  auto slice = layout.sliceOf(6); // coords (1, 2)
  EXPECT_EQ(slice[0], (DimSlice{4, 4, 4}));
  EXPECT_EQ(slice[1], (DimSlice{8, 4, 4}));
  EXPECT_EQ(layout.replication(), 1);
  EXPECT_EQ(layout.devicesHolding({1, 2}), (llvm::SmallVector<int64_t>{6}));
}

TEST(ShardLayout, UnevenDimPadsTheLastShards) {
  DeviceMesh mesh = llvm::cantFail(DeviceMesh::create({"x"}, {4}));
  TensorSharding s("mesh", {{{"x"}, false, {}}});
  ShardLayout layout = layoutOf(s, mesh, {5});
  // ceil(5/4) = 2: shards [0,2) [2,4) [4,5)+pad, and one of padding only.
  EXPECT_EQ(layout.localShape(), (llvm::SmallVector<int64_t>{2}));
  EXPECT_EQ(layout.sliceOf(0)[0], (DimSlice{0, 2, 2}));
  EXPECT_EQ(layout.sliceOf(2)[0], (DimSlice{4, 2, 1}));
  EXPECT_EQ(layout.sliceOf(3)[0], (DimSlice{6, 2, 0}));
}

TEST(ShardLayout, AxisOrderInsideADimension) {
  DeviceMesh mesh = llvm::cantFail(DeviceMesh::create({"a", "b"}, {2, 2}));
  // {"b", "a"}: b is major, so device 1 (a=0, b=1) holds shard 2.
  TensorSharding s("mesh", {{{"b", "a"}, false, {}}});
  ShardLayout layout = layoutOf(s, mesh, {8});
  EXPECT_EQ(layout.shardIndex(1), (llvm::SmallVector<int64_t>{2}));
  EXPECT_EQ(layout.shardIndex(2), (llvm::SmallVector<int64_t>{1}));
}

TEST(ShardLayout, ReplicasAndPartialHolders) {
  DeviceMesh mesh = llvm::cantFail(DeviceMesh::create({"data", "model"}, {2, 4}));
  TensorSharding s("mesh", {{{"data"}, false, {}}, {}}, {}, {"model"});
  ShardLayout layout = layoutOf(s, mesh, {4, 4});
  EXPECT_EQ(layout.replication(), 4);
  EXPECT_EQ(layout.devicesHolding({1, 0}),
            (llvm::SmallVector<int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(layout.partialAxes(), (llvm::ArrayRef<AxisIndex>{1}));
}

TEST(ShardLayout, RejectsInvalidSharding) {
  DeviceMesh mesh = llvm::cantFail(DeviceMesh::create({"x"}, {2}));
  TensorSharding s("mesh", {{{"y"}, false, {}}});
  auto layout = ShardLayout::get(s, mesh, {4});
  ASSERT_FALSE(bool(layout));
  EXPECT_NE(llvm::toString(layout.takeError()).find("no axis named \"y\""),
            std::string::npos);
}

/// For every sharding of a 2-D tensor over a 2x2x2 mesh (and some shapes,
/// uneven on purpose), the shards tile the tensor exactly: every element is
/// held by exactly `replication()` devices, the devices holding a shard are
/// those `devicesHolding` lists, and padding is never counted.
class ShardTiling
    : public ::testing::TestWithParam<std::tuple<std::vector<int64_t>, bool>> {
};

TEST_P(ShardTiling, EveryShardingTilesTheTensor) {
  auto [shape, permuted] = GetParam();
  std::vector<int64_t> ids;
  if (permuted)
    ids = {5, 2, 7, 0, 3, 6, 1, 4};
  DeviceMesh mesh = llvm::cantFail(DeviceMesh::create({"a", "b", "c"}, {2, 2, 2}, ids));
  std::vector<TensorSharding> shardings =
      allShardings(mesh, 2, /*withPartial=*/true);
  // 3 axes, 3 places (dim0, dim1, partial) in all orders, or unused:
  // sum over k of C(3,k) * k! * (ways to split an ordered list of k into
  // 3 ordered groups) = 1 + 3*3 + 3*2*(3*4/2) + 6*10 = 1 + 9 + 36 + 60.
  ASSERT_EQ(shardings.size(), 106u);
  std::set<std::string> distinct;
  for (const TensorSharding &s : shardings) {
    SCOPED_TRACE(s.str());
    distinct.insert(s.str());
    ShardLayout layout = layoutOf(s, mesh, shape);
    std::vector<int> held(shape[0] * shape[1], 0);
    std::map<llvm::SmallVector<int64_t>, llvm::SmallVector<int64_t>> owners;
    for (int64_t device = 0; device < mesh.numDevices(); ++device) {
      auto slice = layout.sliceOf(device);
      owners[layout.shardIndex(device)].push_back(device);
      for (int64_t i = 0; i < slice[0].valid; ++i)
        for (int64_t j = 0; j < slice[1].valid; ++j)
          ++held[(slice[0].offset + i) * shape[1] + slice[1].offset + j];
      for (unsigned d = 0; d < 2; ++d) {
        EXPECT_LE(slice[d].valid, slice[d].size);
        EXPECT_EQ(slice[d].size,
                  llvm::divideCeil(shape[d], layout.numShards(d)));
      }
    }
    for (int count : held)
      ASSERT_EQ(count, layout.replication());
    for (auto &[index, devices] : owners) {
      llvm::sort(devices);
      EXPECT_EQ(layout.devicesHolding(index), devices);
      EXPECT_EQ(static_cast<int64_t>(devices.size()), layout.replication());
    }
  }
  EXPECT_EQ(distinct.size(), shardings.size());
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ShardTiling,
    ::testing::Combine(::testing::Values(std::vector<int64_t>{8, 8},
                                         std::vector<int64_t>{5, 7},
                                         std::vector<int64_t>{1, 3},
                                         std::vector<int64_t>{16, 6}),
                       ::testing::Bool()));
