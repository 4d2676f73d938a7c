//===- SpawnRunTest.cpp - Program::run on the devices of spawn ------------===//
//
// Inside spmd::spawn each device runs a program as written for one device,
// on its own inputs, all devices at once: the results against the host's
// and against the same program run on the mesh outside spawn, results fed
// to the next run, runs mixed with spmd::dist collectives, and the
// programs and inputs a device cannot run alone.
//
//===----------------------------------------------------------------------===//

#include "ApiTestSupport.h"

#include <atomic>
#include <cmath>

using namespace spmd;
using spmd_test::DeviceFailures;

namespace {

/// x @ w, then its column sums: split over `data` where it runs on the mesh.
const char *kLayer = R"mlir(
spmd.mesh @mesh = <["data"=4]>
func.func @layer(%x: tensor<4x6xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"data"}, {}]>},
                 %w: tensor<6x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x6xf32>, tensor<6x3xf32>)
                     outs(%f : tensor<4x3xf32>) -> tensor<4x3xf32>
  %c = spmd.sharding_constraint %y <@mesh, [{"data"}, {}]> : tensor<4x3xf32>
  %se = tensor.empty() : tensor<3xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<3xf32>) -> tensor<3xf32>
  %s = linalg.reduce ins(%c : tensor<4x3xf32>) outs(%sf : tensor<3xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %c, %s : tensor<4x3xf32>, tensor<3xf32>
})mlir";

/// A tensor of `shape` whose element i is value(i).
HostTensor f32Of(std::vector<int64_t> shape,
                 const std::function<float(int64_t)> &value) {
  HostTensor t(DType::F32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i)
    static_cast<float *>(t.data())[i] = value(i);
  return t;
}

/// Small integers, distinct per device: every sum is exact.
HostTensor inputOf(int64_t rank) {
  return f32Of({4, 6},
               [&](int64_t i) { return float((rank * 5 + i) % 7 - 3); });
}
HostTensor weights() {
  return f32Of({6, 3}, [](int64_t i) { return float(i % 5 - 2); });
}

/// What @layer computes, here.
std::pair<std::vector<float>, std::vector<float>> layerOnHost(int64_t rank) {
  HostTensor x = inputOf(rank), w = weights();
  std::vector<float> y(12, 0), s(3, 0);
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 3; ++c) {
      for (int64_t k = 0; k < 6; ++k)
        y[r * 3 + c] += x.at(r * 6 + k) * w.at(k * 3 + c);
      s[c] += y[r * 3 + c];
    }
  return {y, s};
}

/// `t` holds `want` exactly (on `device`).
void expectEqual(DeviceFailures &f, const HostTensor &t,
                 const std::vector<float> &want, int64_t device,
                 const std::string &what) {
  std::string where = what + " on device " + std::to_string(device);
  if (t.numel() != int64_t(want.size()))
    return f.add(where + ": " + std::to_string(t.numel()) + " elements");
  f.expectValues(
      t, [&](int64_t i) { return want[i]; }, where);
}

} // namespace

TEST(SpawnRun, EachDeviceRunsTheProgramOnItsInputs) {
  setenv("SPMD_NUM_DEVICES", "4", 1);
  absl::StatusOr<Program> p = Program::fromString(kLayer);
  ASSERT_TRUE(p.ok()) << p.status();
  DeviceFailures f;
  std::atomic<int> ran{0};
  absl::Status status = spawn([&](int64_t rank) {
    absl::StatusOr<std::vector<ShardedTensor>> out =
        p->run({inputOf(rank), weights()});
    if (!out.ok())
      return f.add("device " + std::to_string(rank) + ": " +
                   out.status().ToString());
    auto [y, s] = layerOnHost(rank);
    expectEqual(f, *(*out)[0].to_host(), y, rank, "x @ w");
    expectEqual(f, *(*out)[1].to_host(), s, rank, "its column sums");
    // On the calling device, whole.
    std::vector<ShardedTensor::Shard> shards = (*out)[1].local_shards();
    if (shards.size() != 1 || shards[0].device != rank)
      f.add("device " + std::to_string(rank) + " holds " +
            std::to_string(shards.size()) + " shards of its result");
    ++ran;
  });
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(ran.load(), 4);
  f.report();

  // The same program on the mesh, outside spawn, computes the same.
  for (int64_t rank = 0; rank < 4; ++rank) {
    absl::StatusOr<std::vector<ShardedTensor>> out =
        p->run({inputOf(rank), weights()});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_NE((*out)[0].sharding().find("data"), std::string::npos);
    auto [y, s] = layerOnHost(rank);
    expectEqual(f, *(*out)[0].to_host(), y, rank, "on the mesh, x @ w");
    expectEqual(f, *(*out)[1].to_host(), s, rank, "on the mesh, the sums");
  }
  f.report();
}

/// A data-parallel step as users write it: each device's program gives its
/// local sums, an all_reduce adds them, and the next run takes a result of
/// the previous one.
TEST(SpawnRun, RunsMixWithCollectivesAndTakeEarlierResults) {
  setenv("SPMD_NUM_DEVICES", "3", 1);
  absl::StatusOr<Program> layer = Program::fromString(kLayer);
  absl::StatusOr<Program> twice = Program::fromString(R"mlir(
func.func @twice(%s: tensor<3xf32>) -> tensor<3xf32> {
  %d = arith.addf %s, %s : tensor<3xf32>
  return %d : tensor<3xf32>
})mlir");
  ASSERT_TRUE(layer.ok() && twice.ok());
  std::vector<float> total(3, 0);
  for (int64_t rank = 0; rank < 3; ++rank)
    for (int64_t c = 0; c < 3; ++c)
      total[c] += layerOnHost(rank).second[c];
  DeviceFailures f;
  absl::Status status = spawn([&](int64_t rank) {
    for (int step = 0; step < 3; ++step) {
      absl::StatusOr<std::vector<ShardedTensor>> out =
          layer->run({inputOf(rank), weights()});
      if (!out.ok())
        return f.add(out.status().ToString());
      absl::StatusOr<std::vector<ShardedTensor>> doubled =
          twice->run({(*out)[1]});
      if (!doubled.ok())
        return f.add(doubled.status().ToString());
      HostTensor sums = *(*doubled)[0].to_host();
      if (absl::Status s = dist::all_reduce(sums); !s.ok())
        return f.add(s.ToString());
      std::vector<float> want;
      for (float t : total)
        want.push_back(2 * t);
      expectEqual(f, sums, want, rank, "step " + std::to_string(step));
    }
  });
  ASSERT_TRUE(status.ok()) << status;
  f.report();
}

TEST(SpawnRun, WhatADeviceCannotRunAloneIsAnError) {
  setenv("SPMD_NUM_DEVICES", "2", 1);
  absl::StatusOr<Program> manual = Program::fromString(R"mlir(
spmd.mesh @mesh = <["x"=2]>
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = spmd.manual_computation(%a) in_shardings = [<@mesh, [{"x"}]>]
      out_shardings = [<@mesh, [{"x"}]>] manual_axes = ["x"]
      (%l: tensor<2xf32>) {
    %s = spmd.all_reduce %l on @mesh axes = ["x"] reduction = sum : tensor<2xf32>
    spmd.yield %s : tensor<2xf32>
  } : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
})mlir");
  ASSERT_TRUE(manual.ok()) << manual.status();
  absl::StatusOr<Program> layer = Program::fromString(kLayer);
  ASSERT_TRUE(layer.ok()) << layer.status();
  // A tensor split over two devices, placed outside spawn.
  absl::StatusOr<ShardedTensor> split =
      mark_sharding(inputOf(0), Mesh(std::vector<int64_t>{0, 1}, {2}, {"data"}),
                    {"data", None});
  ASSERT_TRUE(split.ok()) << split.status();
  absl::Status region, splitInput, wrongShape;
  ASSERT_TRUE(
      spawn([&](int64_t rank) {
        if (rank != 1)
          return;
        region = manual->run({f32Of({4}, [](int64_t) { return 1; })}).status();
        splitInput = layer->run({*split, weights()}).status();
        wrongShape = layer->run({weights(), weights()}).status();
      }).ok());
  EXPECT_EQ(region.code(), absl::StatusCode::kFailedPrecondition) << region;
  EXPECT_NE(region.message().find("<string>:4:"), std::string::npos) << region;
  EXPECT_NE(region.message().find("spmd.manual_computation"), std::string::npos)
      << region;
  EXPECT_EQ(splitInput.code(), absl::StatusCode::kInvalidArgument)
      << splitInput;
  EXPECT_NE(splitInput.message().find("input 0 is split"), std::string::npos)
      << splitInput;
  EXPECT_EQ(wrongShape.code(), absl::StatusCode::kInvalidArgument)
      << wrongShape;
}
