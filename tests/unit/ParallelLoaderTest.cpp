//===- ParallelLoaderTest.cpp - Batches placed ahead of use ---------------===//
//
// Only <spmd/spmd.h>: batches from a callable and from a folder arrive in
// order, placed as input_sharding says; loading runs ahead by at most
// `prefetch` batches and overlaps the consumer's work; a failing source, a
// batch of another shape, a source that throws and a loader destroyed
// mid-epoch end cleanly.
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

using spmd::None;
namespace fs = std::filesystem;

namespace {

const spmd::Mesh kMesh({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4}, {"data", "model"});

/// Batch k: x [16, 8] f32 of k * 1000 + i, y [16] i32 of k.
spmd::ParallelLoader::Batch batch(int64_t k, int64_t rows = 16) {
  spmd::HostTensor x(spmd::DType::F32, {rows, 8});
  for (int64_t i = 0; i < x.numel(); ++i)
    static_cast<float *>(x.data())[i] = float(k * 1000 + i);
  spmd::HostTensor y(spmd::DType::I32, {rows});
  for (int64_t i = 0; i < rows; ++i)
    static_cast<int32_t *>(y.data())[i] = int32_t(k);
  return {x, y};
}

const spmd::ParallelLoader::InputSharding kSharding = {{kMesh, {"data", None}},
                                                       {kMesh, {"data"}}};

/// A source of `count` batches, counting its calls.
spmd::ParallelLoader::Source counted(int64_t count, std::atomic<int> &calls,
                                     int sleepMs = 0) {
  return [count, &calls, sleepMs]()
             -> absl::StatusOr<std::optional<spmd::ParallelLoader::Batch>> {
    int k = calls++;
    if (sleepMs)
      std::this_thread::sleep_for(std::chrono::milliseconds(sleepMs));
    if (k >= count)
      return std::nullopt;
    return batch(k);
  };
}

void expectBatch(const std::vector<spmd::ShardedTensor> &got, int64_t k) {
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].sharding(), "<@mesh, [{\"data\"}, {}]>");
  EXPECT_EQ(got[0].local_shards().size(), 8u);
  spmd::HostTensor want = batch(k)[0];
  auto x = got[0].to_host();
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(std::memcmp(x->data(), want.data(), want.numel() * 4), 0);
  auto y = got[1].to_host();
  EXPECT_EQ(y->at(15), double(k));
}

TEST(ParallelLoader, BatchesArriveInOrderPlaced) {
  std::atomic<int> calls{0};
  auto loader = spmd::ParallelLoader::create(counted(10, calls), kSharding, 3);
  ASSERT_TRUE(loader.ok()) << loader.status();
  for (int64_t k = 0; k < 10; ++k) {
    auto next = loader->next();
    ASSERT_TRUE(next.ok()) << next.status();
    ASSERT_TRUE(next->has_value()) << k;
    expectBatch(**next, k);
  }
  for (int i = 0; i < 2; ++i) {
    auto end = loader->next();
    ASSERT_TRUE(end.ok());
    EXPECT_FALSE(end->has_value());
  }
  EXPECT_EQ(loader->batches(), 10);
  EXPECT_EQ(calls.load(), 11);
}

TEST(ParallelLoader, RunsAheadByAtMostPrefetch) {
  std::atomic<int> calls{0};
  auto loader = spmd::ParallelLoader::create(counted(100, calls), kSharding, 2);
  ASSERT_TRUE(loader.ok());
  // The loader fills up to 2 batches, then waits (however busy the
  // machine: it is given time, then must still be at 2).
  auto settle = [&](int expected) {
    for (int i = 0; i < 500 && calls.load() < expected; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(calls.load(), expected);
  };
  settle(2);
  ASSERT_TRUE(loader->next().ok());
  settle(3);
}

TEST(ParallelLoader, LoadingOverlapsTheConsumersWork) {
  // Each batch takes 20 ms to load, each step 30 ms: after the first,
  // batches are ready when asked for.
  std::atomic<int> calls{0};
  auto loader =
      spmd::ParallelLoader::create(counted(10, calls, 20), kSharding, 2);
  ASSERT_TRUE(loader.ok());
  auto start = std::chrono::steady_clock::now();
  while (true) {
    auto next = loader->next();
    ASSERT_TRUE(next.ok());
    if (!next->has_value())
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  // Serial loading would wait 10 x 20 ms; overlapped, about the first 20.
  EXPECT_LT(loader->wait_seconds(), 0.1) << "of " << total << " s";
  EXPECT_LT(total, 0.2 + 0.3 + 0.1);
}

TEST(ParallelLoader, ASourceErrorEndsTheData) {
  int k = 0;
  auto loader = spmd::ParallelLoader::create(
      [&]() -> absl::StatusOr<std::optional<spmd::ParallelLoader::Batch>> {
        if (k == 3)
          return absl::UnavailableError("disk gone");
        return batch(k++);
      },
      kSharding);
  ASSERT_TRUE(loader.ok());
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(loader->next().ok());
  auto failed = loader->next();
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(failed.status().message().find("batch 3"), std::string::npos);
  EXPECT_NE(failed.status().message().find("disk gone"), std::string::npos);
  auto after = loader->next();
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->has_value());
}

TEST(ParallelLoader, ABatchOfAnotherShapeIsAnError) {
  int k = 0;
  auto loader = spmd::ParallelLoader::create(
      [&]() -> absl::StatusOr<std::optional<spmd::ParallelLoader::Batch>> {
        ++k;
        return batch(k, k == 3 ? 24 : 16);
      },
      kSharding);
  ASSERT_TRUE(loader.ok());
  ASSERT_TRUE(loader->next().ok());
  ASSERT_TRUE(loader->next().ok());
  auto failed = loader->next();
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("batch 2 holds (f32[24, 8], "
                                           "i32[24]), the first batch "
                                           "(f32[16, 8], i32[16])"),
            std::string::npos)
      << failed.status();
}

TEST(ParallelLoader, MisuseIsAnError) {
  std::atomic<int> calls{0};
  EXPECT_FALSE(
      spmd::ParallelLoader::create(counted(1, calls), kSharding, 0).ok());
  EXPECT_FALSE(spmd::ParallelLoader::create(nullptr, kSharding).ok());
  // One input too few for input_sharding.
  auto loader = spmd::ParallelLoader::create(
      [] {
        return absl::StatusOr<std::optional<spmd::ParallelLoader::Batch>>(
            spmd::ParallelLoader::Batch{batch(0)[0]});
      },
      kSharding);
  ASSERT_TRUE(loader.ok());
  auto failed = loader->next();
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("1 inputs"), std::string::npos);
  // A source that throws.
  auto throwing = spmd::ParallelLoader::create(
      []() -> absl::StatusOr<std::optional<spmd::ParallelLoader::Batch>> {
        throw std::runtime_error("my parser failed at line 7");
      },
      kSharding);
  ASSERT_TRUE(throwing.ok());
  auto thrown = throwing->next();
  ASSERT_FALSE(thrown.ok());
  // The exception's text and the batch, not just "threw".
  EXPECT_NE(thrown.status().message().find(
                "batch 0: the source threw: my parser failed at line 7"),
            std::string::npos)
      << thrown.status();
  EXPECT_FALSE(
      spmd::ParallelLoader::fromFolder("/nonexistent", kSharding).ok());
}

TEST(ParallelLoader, DestroyedMidEpoch) {
  for (int prefetch : {1, 4}) {
    std::atomic<int> calls{0};
    auto loader = spmd::ParallelLoader::create(counted(1 << 30, calls, 5),
                                               kSharding, prefetch);
    ASSERT_TRUE(loader.ok());
    ASSERT_TRUE(loader->next().ok());
    ASSERT_TRUE(loader->next().ok());
    // Destroyed here, its thread mid-batch or waiting.
  }
}

/// A safetensors file of `tensors` (name, dtype name, shape, bytes).
void writeSafetensors(
    const std::string &path,
    const std::vector<std::tuple<std::string, std::string, std::vector<int64_t>,
                                 std::string>> &tensors) {
  std::string header = "{", data;
  for (const auto &[name, dtype, shape, bytes] : tensors) {
    std::string dims;
    for (int64_t d : shape)
      dims += (dims.empty() ? "" : ",") + std::to_string(d);
    header += (header.size() > 1 ? "," : "") +
              ("\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":[" +
               dims + "],\"data_offsets\":[" + std::to_string(data.size()) +
               "," + std::to_string(data.size() + bytes.size()) + "]}");
    data += bytes;
  }
  header += "}";
  uint64_t n = header.size();
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(&n), 8);
  out << header << data;
}

std::string bytesOf(const spmd::HostTensor &t, size_t width) {
  return std::string(static_cast<const char *>(t.data()), t.numel() * width);
}

TEST(ParallelLoader, FromAFolderOfBatchFiles) {
  fs::path dir = fs::temp_directory_path() /
                 ("spmd-loader-" + std::to_string(std::random_device()()));
  fs::create_directories(dir);
  for (int k = 0; k < 5; ++k) {
    spmd::ParallelLoader::Batch b = batch(k);
    writeSafetensors(
        (dir / ("batch-" + std::to_string(k) + ".safetensors")).string(),
        {{"input1", "I32", {16}, bytesOf(b[1], 4)},
         {"input0", "F32", {16, 8}, bytesOf(b[0], 4)}});
  }
  auto loader = spmd::ParallelLoader::fromFolder(dir.string(), kSharding);
  ASSERT_TRUE(loader.ok()) << loader.status();
  for (int k = 0; k < 5; ++k) {
    auto next = loader->next();
    ASSERT_TRUE(next.ok()) << next.status();
    ASSERT_TRUE(next->has_value());
    expectBatch(**next, k);
  }
  EXPECT_FALSE(loader->next()->has_value());

  // .npy batches of one input; a file of another shape ends the data.
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto writeNpy = [&](const std::string &name, int64_t rows, int64_t k) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                         std::to_string(rows) + ", 8), }";
    header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
    std::ofstream out(dir / name, std::ios::binary);
    uint16_t length = header.size();
    out << "\x93NUMPY\x01" << '\0';
    out.write(reinterpret_cast<const char *>(&length), 2);
    out << header << bytesOf(batch(k, rows)[0], 4);
  };
  writeNpy("a.npy", 16, 0);
  writeNpy("b.npy", 16, 1);
  writeNpy("c.npy", 8, 2);
  auto npy = spmd::ParallelLoader::fromFolder(dir.string(),
                                              {{kMesh, {"data", "model"}}}, 1);
  ASSERT_TRUE(npy.ok()) << npy.status();
  for (int k = 0; k < 2; ++k) {
    auto next = npy->next();
    ASSERT_TRUE(next.ok()) << next.status();
    auto x = (**next)[0].to_host();
    spmd::HostTensor want = batch(k)[0];
    EXPECT_EQ(std::memcmp(x->data(), want.data(), want.numel() * 4), 0);
  }
  auto failed = npy->next();
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("f32[8, 8]"), std::string::npos)
      << failed.status();
  fs::remove_all(dir);
}

// A bool is a byte, 0 or 1, in .npy batches as in every other way in: a
// 2 would read as true or false depending on the code reading it.
TEST(ParallelLoader, NpyBatchBoolsOtherThanZeroOrOneAreRefused) {
  fs::path dir = fs::temp_directory_path() /
                 ("spmd-loader-" + std::to_string(std::random_device()()));
  fs::create_directories(dir);
  auto writeBools = [&](const std::string &name, const std::string &bytes) {
    std::string header =
        "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }";
    header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
    std::ofstream out(dir / name, std::ios::binary);
    uint16_t length = header.size();
    out << "\x93NUMPY\x01" << '\0';
    out.write(reinterpret_cast<const char *>(&length), 2);
    out << header << bytes;
  };
  writeBools("a.npy", std::string("\x00\x01\x00\x01", 4));
  writeBools("b.npy", std::string("\x00\x01\x02\x01", 4));
  auto loader =
      spmd::ParallelLoader::fromFolder(dir.string(), {{kMesh, {"data"}}}, 1);
  ASSERT_TRUE(loader.ok()) << loader.status();
  auto good = loader->next();
  ASSERT_TRUE(good.ok()) << good.status();
  auto flags = (**good)[0].to_host();
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(std::memcmp(flags->data(), "\x00\x01\x00\x01", 4), 0);
  auto bad = loader->next();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(
      bad.status().message().find("b.npy: element 2 is 2, not a bool (0 or 1)"),
      std::string::npos)
      << bad.status();
  fs::remove_all(dir);
}

} // namespace
