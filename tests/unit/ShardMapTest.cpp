//===- ShardMapTest.cpp - Manual regions from the tensor builder ----------===//
//
// Program::shard_map and the collectives of its body, through
// <spmd/spmd.h> only: the Megatron MLP written per device equals the same
// math on one device, fully manual and with the model axis left automatic;
// every collective equals its meaning; misuse is an error naming it.
//
//===----------------------------------------------------------------------===//

#include "ApiTestSupport.h"

using spmd::None;
using spmd_test::iota;
using spmd_test::maxDiff;

namespace {
spmd::Mesh dataModelMesh() {
  return spmd::Mesh({0, 1, 2, 3}, {2, 2}, {"data", "model"});
}

std::vector<spmd::Input> mlpInputs() {
  return {iota({8, 16}, 0.05f), iota({16, 12}, 0.04f), iota({12, 16}, 0.03f)};
}

/// relu(x w1) w2 on one device.
std::vector<spmd::HostTensor> mlpOnOneDevice() {
  spmd::Program p = spmd::Program::build("mlp");
  spmd::Value x = p.parameter({8, 16}), w1 = p.parameter({16, 12}),
              w2 = p.parameter({12, 16});
  EXPECT_TRUE(p.output({p.matmul(p.relu(p.matmul(x, w1)), w2)}).ok());
  auto out = p.run(mlpInputs());
  EXPECT_TRUE(out.ok()) << out.status();
  return {*(*out)[0].to_host()};
}

/// The MLP in a shard_map over `manual` of a data x model mesh: batch
/// over data, w1's columns and w2's rows over model, one all_reduce over
/// model when model is manual.
spmd::Program mlpShardMap(const std::vector<std::string> &manual) {
  spmd::Program p = spmd::Program::build("mlp");
  spmd::Value x = p.parameter({8, 16}), w1 = p.parameter({16, 12}),
              w2 = p.parameter({12, 16});
  bool modelManual = manual.size() == 2;
  auto body = [&](const std::vector<spmd::Value> &l) {
    spmd::Value y = p.matmul(p.relu(p.matmul(l[0], l[1])), l[2]);
    if (modelManual)
      y = p.all_reduce(y, {"model"});
    return std::vector<spmd::Value>{y};
  };
  std::vector<spmd::Value> r =
      p.shard_map(body, {x, w1, w2}, dataModelMesh(),
                  {{"data", None}, {None, "model"}, {"model", None}},
                  {{"data", None}}, manual);
  EXPECT_EQ(r.size(), 1u);
  EXPECT_TRUE(p.status().ok()) << p.status();
  if (!r.empty()) {
    EXPECT_TRUE(p.output(r).ok());
  }
  return p;
}
} // namespace

/// The MLP shard_map over `manual`, run against one device (a failure
/// added); its partitioned program.
std::string mlpPartitioned(const std::vector<std::string> &manual) {
  std::vector<spmd::HostTensor> want = mlpOnOneDevice();
  spmd::Program p = mlpShardMap(manual);
  auto got = p.run(mlpInputs());
  if (!got.ok()) {
    ADD_FAILURE() << got.status();
    return "";
  }
  EXPECT_LT(maxDiff(*(*got)[0].to_host(), want[0]), 1e-5);
  auto partitioned = p.partitioned();
  EXPECT_TRUE(partitioned.ok()) << partitioned.status();
  return partitioned.ok() ? *partitioned : "";
}

TEST(ShardMap, MegatronMatchesOneDevice) {
  std::string partitioned = mlpPartitioned({"data", "model"});
  // Per device: a 4x16 batch block, 16x6 and 6x16 weight blocks.
  EXPECT_NE(partitioned.find("tensor<16x6xf32>"), std::string::npos);
  EXPECT_NE(partitioned.find("spmd.all_reduce"), std::string::npos);
}

// With model left automatic, the body is partitioned over it: the weights
// stay split (no gather of a whole weight) and the sum over model is the
// partitioner's.
TEST(ShardMap, PartlyManualIsPartitionedOverTheFreeAxis) {
  std::string partitioned = mlpPartitioned({"data"});
  EXPECT_NE(partitioned.find("tensor<16x6xf32>"), std::string::npos);
  EXPECT_EQ(partitioned.find("spmd.all_gather"), std::string::npos)
      << partitioned;
}

// Each collective against its meaning on a 2x2 mesh, x split by rows over
// data and by columns over model.
TEST(ShardMap, CollectivesMeanWhatTheySay) {
  spmd::Program p = spmd::Program::build("c");
  spmd::Value x = p.parameter({4, 4});
  auto body = [&](const std::vector<spmd::Value> &l) {
    spmd::Value piece = l[0]; // 2x2
    return std::vector<spmd::Value>{
        p.all_gather(piece, {"data"}, 0), // 4x2: columns
        p.all_reduce(piece, {"data", "model"}, spmd::dist::ReduceOp::MAX),
        p.reduce_scatter(piece, {"model"}, 1),          // 2x1
        p.all_to_all(piece, {"data"}, 0, 1),            // 1x4
        p.ppermute(piece, {"model"}, {{0, 1}, {1, 0}}), // swapped
    };
  };
  std::vector<spmd::Value> r =
      p.shard_map(body, {x}, dataModelMesh(), {{"data", "model"}},
                  {{None, "model"},
                   {None, None},
                   {"data", "model"},
                   {"data", "model"},
                   {"data", "model"}},
                  {"data", "model"});
  ASSERT_TRUE(p.status().ok()) << p.status();
  ASSERT_TRUE(p.output(r).ok());
  std::vector<float> in(16);
  for (int i = 0; i < 16; ++i)
    in[i] = float(i);
  auto got = p.run({*spmd::HostTensor::fromVector<float>({4, 4}, in)});
  ASSERT_TRUE(got.ok()) << got.status();
  auto host = [&](int i) { return *(*got)[i].to_host(); };
  // all_gather over data of the blocks: the whole tensor again.
  EXPECT_EQ(host(0).shape(), (std::vector<int64_t>{4, 4}));
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(host(0).at(i), in[i]);
  // The max of the four 2x2 blocks: the bottom-right one.
  EXPECT_EQ(host(1).shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(host(1).at(0), 10.f);
  EXPECT_EQ(host(1).at(3), 15.f);
  // reduce_scatter over model: member j keeps column j of the sum of the
  // row's two blocks; element (0, 0) is x[0][0] + x[0][2].
  EXPECT_EQ(host(2).shape(), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(host(2).at(0), 0.f + 2.f);
  EXPECT_EQ(host(2).at(1), 1.f + 3.f);
  // all_to_all over data (split rows, concatenate columns): device (d, m)
  // holds row d of each data member's block, side by side.
  EXPECT_EQ(host(3).shape(), (std::vector<int64_t>{2, 8}));
  EXPECT_EQ(host(3).at(0), 0.f); // (0,0): row 0 of block (0,0)
  EXPECT_EQ(host(3).at(2), 8.f); // then row 0 of block (1,0)
  // ppermute over model swaps the column blocks.
  EXPECT_EQ(host(4).at(0), 2.f);
  EXPECT_EQ(host(4).at(2), 0.f);
}

TEST(ShardMap, MisuseIsAnError) {
  {
    spmd::Program p = spmd::Program::build();
    spmd::Value x = p.parameter({4, 4});
    EXPECT_FALSE(p.all_reduce(x, {"data"}).valid());
    EXPECT_ERROR(p.status(), "all_reduce is a collective of a shard_map body");
  }
  {
    spmd::Program p = spmd::Program::build();
    spmd::Value x = p.parameter({4, 4}), y = p.parameter({4, 4});
    p.shard_map(
        [&](const std::vector<spmd::Value> &l) {
          return std::vector<spmd::Value>{p.add(l[0], y)};
        },
        {x}, dataModelMesh(), {{"data", None}}, {{"data", None}}, {"data"});
    EXPECT_ERROR(p.status(), "uses only its arguments");
  }
  {
    spmd::Program p = spmd::Program::build();
    spmd::Value x = p.parameter({4, 4});
    spmd::Value inside;
    p.shard_map(
        [&](const std::vector<spmd::Value> &l) {
          inside = p.relu(l[0]);
          return std::vector<spmd::Value>{inside};
        },
        {x}, dataModelMesh(), {{"data", None}}, {{"data", None}}, {"data"});
    ASSERT_TRUE(p.status().ok()) << p.status();
    EXPECT_FALSE(p.relu(inside).valid());
    EXPECT_ERROR(p.status(), "local to it");
  }
  {
    spmd::Program p = spmd::Program::build();
    spmd::Value x = p.parameter({4, 4});
    p.shard_map(
        [&](const std::vector<spmd::Value> &l) {
          return std::vector<spmd::Value>{p.all_reduce(l[0], {"model"})};
        },
        {x}, dataModelMesh(), {{"data", None}}, {{"data", None}}, {"data"});
    EXPECT_ERROR(p.status(), "not a manual axis");
  }
  for (bool gather : {true, false}) {
    spmd::Program p = spmd::Program::build();
    spmd::Value x = p.parameter({4, 4});
    p.shard_map(
        [&](const std::vector<spmd::Value> &l) {
          return std::vector<spmd::Value>{
              gather ? p.all_gather(l[0], {"data"}, 2)
                     : p.reduce_scatter(l[0], {"data"}, -1)};
        },
        {x}, dataModelMesh(), {{"data", None}}, {{"data", None}}, {"data"});
    EXPECT_ERROR(p.status(), gather ? "all_gather along dimension 2 of"
                                    : "reduce_scatter along dimension -1 of");
  }
  {
    // A manual axis after a free one: the verifier's message.
    spmd::Program p = spmd::Program::build();
    spmd::Value x = p.parameter({4, 4});
    p.shard_map(
        [&](const std::vector<spmd::Value> &l) {
          return std::vector<spmd::Value>{l[0]};
        },
        {x}, dataModelMesh(), {{spmd::SpecEntry({"model", "data"}), None}},
        {{"data", None}}, {"data"});
    EXPECT_ERROR(p.status(), "manual axes come first");
    EXPECT_ERROR(p.compile(), "manual axes come first");
  }
  {
    spmd::Program p = spmd::Program::build();
    spmd::Value x = p.parameter({4, 4});
    p.shard_map(
        [&](const std::vector<spmd::Value> &l) {
          p.shard_map([&](const std::vector<spmd::Value> &m) { return m; },
                      {l[0]}, dataModelMesh(), {{None, None}}, {{None, None}},
                      {"model"});
          return std::vector<spmd::Value>{l[0]};
        },
        {x}, dataModelMesh(), {{"data", None}}, {{"data", None}}, {"data"});
    EXPECT_ERROR(p.status(), "inside a shard_map body is not supported");
  }
}
