//===- CheckpointTest.cpp - Sharded checkpoints, as a user saves them -----===//
//
// Only <spmd/spmd.h>: tensors of every element type saved on one mesh and
// loaded, bit for bit, on another mesh, spec and device count; overwrites;
// the bytes a load reads; and every kind of damage to a checkpoint giving
// an error that names the file and the tensor.
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include "Mutation.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using spmd::None;
namespace fs = std::filesystem;

namespace {

const spmd::Mesh kMesh2x4({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4}, {"data", "model"});
const spmd::Mesh kMesh4x2({7, 6, 5, 4, 3, 2, 1, 0}, {4, 2}, {"x", "y"});
const spmd::Mesh kMesh1({0}, {1}, {"one"});

const spmd::DType kEveryType[] = {
    spmd::DType::F32,  spmd::DType::F64, spmd::DType::F16,
    spmd::DType::BF16, spmd::DType::I1,  spmd::DType::I8,
    spmd::DType::I16,  spmd::DType::I32, spmd::DType::I64};

/// A fresh folder for one test.
std::string scratch(const std::string &name) {
  fs::path dir =
      fs::temp_directory_path() / ("spmd-checkpoint-" + name + "-" +
                                   std::to_string(std::random_device()()));
  fs::remove_all(dir);
  return dir.string();
}

size_t widthOf(spmd::DType type) {
  switch (type) {
  case spmd::DType::I1:
  case spmd::DType::I8:
    return 1;
  case spmd::DType::F16:
  case spmd::DType::BF16:
  case spmd::DType::I16:
    return 2;
  case spmd::DType::F32:
  case spmd::DType::I32:
    return 4;
  default:
    return 8;
  }
}

/// A tensor of `type` whose elements differ from their neighbours' (bools
/// 0 or 1; other types any bit pattern, NaNs included, since a checkpoint
/// keeps bits).
spmd::HostTensor patterned(spmd::DType type, std::vector<int64_t> shape,
                           int seed) {
  spmd::HostTensor t(type, shape);
  auto *bytes = static_cast<uint8_t *>(t.data());
  int64_t n = t.numel() * int64_t(widthOf(type));
  for (int64_t i = 0; i < n; ++i)
    bytes[i] = type == spmd::DType::I1 ? uint8_t((i * 7 + seed) % 3 == 0)
                                       : uint8_t((i * 31 + seed) % 251);
  return t;
}

/// Whether two host tensors hold the same type, shape and bytes.
void expectSameBits(const spmd::HostTensor &a, const spmd::HostTensor &b,
                    const std::string &what) {
  ASSERT_EQ(a.dtype(), b.dtype()) << what;
  ASSERT_EQ(a.shape(), b.shape()) << what;
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.numel() * widthOf(a.dtype())), 0)
      << what;
}

std::map<std::string, spmd::ShardedTensor>
placeEveryType(const spmd::Mesh &mesh, const spmd::PartitionSpec &spec,
               std::vector<int64_t> shape,
               std::map<std::string, spmd::HostTensor> &hosts) {
  std::map<std::string, spmd::ShardedTensor> placed;
  for (spmd::DType type : kEveryType) {
    std::string name = "t" + std::to_string(int(type));
    hosts[name] = patterned(type, shape, int(type));
    auto t = spmd::mark_sharding(hosts[name], mesh, spec);
    EXPECT_TRUE(t.ok()) << t.status();
    placed.emplace(name, *t);
  }
  return placed;
}

std::map<std::string, std::pair<spmd::Mesh, spmd::PartitionSpec>>
targetsFor(const std::map<std::string, spmd::HostTensor> &hosts,
           const spmd::Mesh &mesh, const spmd::PartitionSpec &spec) {
  std::map<std::string, std::pair<spmd::Mesh, spmd::PartitionSpec>> targets;
  for (const auto &[name, host] : hosts)
    targets.emplace(name, std::make_pair(mesh, spec));
  return targets;
}

void expectLoadsAs(const std::string &dir,
                   const std::map<std::string, spmd::HostTensor> &hosts,
                   const spmd::Mesh &mesh, const spmd::PartitionSpec &spec) {
  auto loaded = spmd::load_checkpoint(dir, targetsFor(hosts, mesh, spec));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->size(), hosts.size());
  for (const auto &[name, host] : hosts) {
    const spmd::ShardedTensor &t = loaded->at(name);
    auto back = t.to_host();
    ASSERT_TRUE(back.ok()) << back.status();
    expectSameBits(host, *back, name);
  }
}

TEST(Checkpoint, SavedOn2x4LoadsOn4x2OneDeviceAndAnotherSpec) {
  std::string dir = scratch("reshard");
  std::map<std::string, spmd::HostTensor> hosts;
  // Uneven on both dimensions: 2 does not divide 7, 4 does not divide 10.
  auto placed = placeEveryType(kMesh2x4, {"data", "model"}, {7, 10}, hosts);
  ASSERT_TRUE(spmd::save_checkpoint(dir, placed).ok());
  expectLoadsAs(dir, hosts, kMesh4x2, {None, "x"});
  expectLoadsAs(dir, hosts, kMesh4x2, {{"y", "x"}, None});
  expectLoadsAs(dir, hosts, kMesh4x2, {"x", "y"});
  expectLoadsAs(dir, hosts, kMesh1, {None, None});
  expectLoadsAs(dir, hosts, kMesh2x4, {"model", "data"});
  fs::remove_all(dir);
}

TEST(Checkpoint, ShardsLandOnTheDevicesTheSpecNames) {
  std::string dir = scratch("placement");
  std::map<std::string, spmd::HostTensor> hosts;
  auto placed = placeEveryType(kMesh2x4, {"model", None}, {8, 3}, hosts);
  ASSERT_TRUE(spmd::save_checkpoint(dir, placed).ok());
  auto loaded = spmd::load_checkpoint(
      dir, {{"t0", {kMesh4x2, spmd::PartitionSpec{"x", None}}}});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const spmd::ShardedTensor &t = loaded->at("t0");
  EXPECT_EQ(t.sharding(), "<@mesh, [{\"x\"}, {}]>");
  auto shards = t.local_shards();
  ASSERT_EQ(shards.size(), 8u);
  for (const spmd::ShardedTensor::Shard &shard : shards) {
    // Device ids run backwards over the 4x2 mesh: id d is at position
    // 7 - d, in row (7 - d) / 2, which holds rows 2 * row and 2 * row + 1.
    int64_t row = (7 - shard.device) / 2;
    EXPECT_EQ(shard.indices[0], std::make_pair(2 * row, 2 * row + 2));
    EXPECT_EQ(std::memcmp(shard.data.data(),
                          static_cast<const float *>(hosts["t0"].data()) +
                              2 * row * 3,
                          6 * sizeof(float)),
              0);
  }
  fs::remove_all(dir);
}

TEST(Checkpoint, ScalarsAndEmptyTensors) {
  std::string dir = scratch("edge");
  std::map<std::string, spmd::HostTensor> hosts{
      {"scalar", patterned(spmd::DType::F32, {}, 3)},
      {"empty", patterned(spmd::DType::I32, {0, 5}, 1)},
      {"tiny", patterned(spmd::DType::F16, {3}, 2)}};
  std::map<std::string, spmd::ShardedTensor> placed{
      {"scalar", *spmd::mark_sharding(hosts["scalar"], kMesh2x4, {})},
      {"empty", *spmd::mark_sharding(hosts["empty"], kMesh2x4, {"data", None})},
      // 3 elements over 8 devices: five hold padding only.
      {"tiny",
       *spmd::mark_sharding(hosts["tiny"], kMesh2x4, {{"data", "model"}})}};
  ASSERT_TRUE(spmd::save_checkpoint(dir, placed).ok());
  auto loaded =
      spmd::load_checkpoint(dir, {{"scalar", {kMesh4x2, {}}},
                                  {"empty", {kMesh4x2, {None, "x"}}},
                                  {"tiny", {kMesh4x2, {{"y", "x"}}}}});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  for (const auto &[name, host] : hosts)
    expectSameBits(host, *loaded->at(name).to_host(), name);
  fs::remove_all(dir);
}

/// Every regular file in `dir`.
std::vector<std::string> filesIn(const std::string &dir) {
  std::vector<std::string> files;
  for (const auto &entry : fs::directory_iterator(dir))
    files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

/// The one shard file of a checkpoint saved by one process.
std::string shardFileIn(const std::string &dir) {
  for (const std::string &file : filesIn(dir))
    if (file != "index.json")
      return (fs::path(dir) / file).string();
  return "";
}

std::string readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Checkpoint, ReplicatedShardsAreWrittenOnce) {
  std::string dir = scratch("once");
  spmd::HostTensor host = patterned(spmd::DType::F32, {64, 64}, 1);
  std::map<std::string, spmd::ShardedTensor> placed{
      {"replicated", *spmd::mark_sharding(host, kMesh2x4, {None, None})},
      {"half", *spmd::mark_sharding(host, kMesh2x4, {"data", None})}};
  ASSERT_TRUE(spmd::save_checkpoint(dir, placed).ok());
  std::vector<std::string> files = filesIn(dir);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0], "index.json");
  // Header aside, the file holds each tensor's bytes once.
  uint64_t size = fs::file_size(fs::path(dir) / files[1]);
  uint64_t header;
  std::string bytes = readAll((fs::path(dir) / files[1]).string());
  std::memcpy(&header, bytes.data(), 8);
  EXPECT_EQ(size - 8 - header, 2u * 64 * 64 * 4);
  fs::remove_all(dir);
}

TEST(Checkpoint, SavingOverACheckpointReplacesIt) {
  std::string dir = scratch("overwrite");
  spmd::HostTensor a = patterned(spmd::DType::F32, {16, 4}, 1);
  spmd::HostTensor b = patterned(spmd::DType::F32, {16, 4}, 2);
  ASSERT_TRUE(spmd::save_checkpoint(
                  dir, {{"w", *spmd::mark_sharding(a, kMesh2x4, {"data"})}})
                  .ok());
  ASSERT_TRUE(spmd::save_checkpoint(
                  dir, {{"w", *spmd::mark_sharding(b, kMesh4x2, {"x"})},
                        {"v", *spmd::mark_sharding(a, kMesh1, {})}})
                  .ok());
  // The first save's files are gone.
  EXPECT_EQ(filesIn(dir).size(), 2u);
  auto loaded = spmd::load_checkpoint(dir, {{"w", {kMesh1, {}}}});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  expectSameBits(b, *loaded->at("w").to_host(), "w");
  fs::remove_all(dir);
}

TEST(Checkpoint, ALoadReadsOnlyTheBytesItsDevicesHold) {
  std::string dir = scratch("bytes");
  spmd::HostTensor host = patterned(spmd::DType::F32, {1024, 1024}, 1);
  const spmd::Mesh line({0, 1, 2, 3, 4, 5, 6, 7}, {8}, {"d"});
  ASSERT_TRUE(spmd::save_checkpoint(
                  dir, {{"w", *spmd::mark_sharding(host, line, {"d", None})}})
                  .ok());
  const int64_t shardBytes = 1024 * 1024 * 4;
  // Columns from rows, rows of another split, a 2-D split, one device.
  for (const auto &[mesh, spec] :
       std::vector<std::pair<spmd::Mesh, spmd::PartitionSpec>>{
           {line, {None, "d"}},
           {kMesh4x2, {"x", "y"}},
           {kMesh4x2, {{"y", "x"}, None}},
           {kMesh1, {None, None}}}) {
    int64_t before = spmd::counter_value("checkpoint_bytes_read");
    auto loaded = spmd::load_checkpoint(dir, {{"w", {mesh, spec}}});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    int64_t read = spmd::counter_value("checkpoint_bytes_read") - before;
    EXPECT_GE(read, shardBytes);
    EXPECT_LE(read, shardBytes * 11 / 10) << loaded->at("w").sharding();
    expectSameBits(host, *loaded->at("w").to_host(), "w");
  }
  fs::remove_all(dir);
}

/// A checkpoint of one tensor to damage, and the path of its shard file.
std::string savedForDamage(const std::string &dir) {
  spmd::HostTensor host = patterned(spmd::DType::F32, {512, 256}, 1);
  EXPECT_TRUE(spmd::save_checkpoint(
                  dir, {{"w", *spmd::mark_sharding(host, kMesh1, {})}})
                  .ok());
  return shardFileIn(dir);
}

void expectLoadFails(const std::string &dir, const std::string &tensor,
                     const std::vector<std::string> &words) {
  auto loaded = spmd::load_checkpoint(dir, {{tensor, {kMesh2x4, {"data"}}}});
  ASSERT_FALSE(loaded.ok());
  for (const std::string &word : words)
    EXPECT_NE(loaded.status().message().find(word), std::string::npos)
        << loaded.status();
}

TEST(Checkpoint, DamageIsAnErrorNamingTheFileAndTensor) {
  std::string dir = scratch("damage");
  std::string shard = savedForDamage(dir);
  std::string name = fs::path(shard).filename().string();
  std::string original = readAll(shard);
  auto rewrite = [&](const std::string &bytes) {
    std::ofstream(shard, std::ios::binary | std::ios::trunc) << bytes;
  };

  // One bit flipped in the data.
  std::string flipped = original;
  flipped[original.size() - 1000] ^= 4;
  rewrite(flipped);
  expectLoadFails(dir, "w", {name, "'w'", "checksum"});
  // Truncated.
  rewrite(original.substr(0, original.size() / 2));
  expectLoadFails(dir, "w", {name, "'w'", "truncated"});
  // Gone.
  fs::remove(shard);
  expectLoadFails(dir, "w", {name, "incomplete"});
  rewrite(original);
  expectLoadFails(dir, "nope", {"'nope'", "not in the checkpoint"});

  std::string index = readAll(dir + "/index.json");
  auto withIndex = [&](const std::string &from, const std::string &to) {
    std::string changed = std::regex_replace(
        index, std::regex(from), to, std::regex_constants::format_first_only);
    ASSERT_NE(changed, index) << from;
    std::ofstream(dir + "/index.json", std::ios::trunc) << changed;
  };
  // A shard that does not cover the tensor, one outside it, a wrong dtype.
  withIndex(R"("end":\s*\[\s*512)", R"("end": [500)");
  expectLoadFails(dir, "w", {"index.json", "'w'"});
  withIndex(R"("end":\s*\[\s*512)", R"("end": [513)");
  expectLoadFails(dir, "w", {"index.json", "'w'", "inside"});
  withIndex(R"("dtype":\s*"F32")", R"("dtype": "F64")");
  expectLoadFails(dir, "w", {"index.json", "'w'"});
  // A count written as a float.
  withIndex(R"("end":\s*\[\s*512)", R"("end": [512.0)");
  expectLoadFails(dir, "w", {"index.json", "'w'"});
  std::ofstream(dir + "/index.json", std::ios::trunc) << "{\"format\": 1";
  expectLoadFails(dir, "w", {"index.json"});
  // A save killed before its index was renamed into place.
  fs::remove(dir + "/index.json");
  expectLoadFails(dir, "w", {"incomplete"});
  fs::remove_all(dir);
  expectLoadFails(dir, "w", {dir});
}

/// Mutants of the index and of a shard file (Mutation.h): each load fails
/// with an error or returns exactly the tensor saved, never a crash and
/// never other bytes.
TEST(Checkpoint, MutatedFilesLoadExactlyOrFail) {
  std::string dir = scratch("mutants");
  spmd::HostTensor host = patterned(spmd::DType::BF16, {40, 24}, 3);
  ASSERT_TRUE(
      spmd::save_checkpoint(
          dir, {{"w", *spmd::mark_sharding(host, kMesh2x4, {"data", "model"})}})
          .ok());
  std::string shard = shardFileIn(dir);
  std::mt19937 rng(11);
  int loaded = 0, failed = 0;
  for (const std::string &path : {dir + "/index.json", shard}) {
    std::string original = readAll(path);
    for (int i = 0, e = spmd::testing::mutantCount(1000); i < e; ++i) {
      std::ofstream(path, std::ios::binary | std::ios::trunc)
          << spmd::testing::mutate(original, rng);
      auto t = spmd::load_checkpoint(dir, {{"w", {kMesh4x2, {"y", "x"}}}});
      if (!t.ok()) {
        ++failed;
        continue;
      }
      ++loaded;
      expectSameBits(host, *t->at("w").to_host(), "a mutant that loads");
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc) << original;
  }
  EXPECT_GT(failed, spmd::testing::mutantCount(1000));
  EXPECT_GT(loaded, 0);
  fs::remove_all(dir);
}

/// An index written by hand: tensor "w" of `dtype` and `shape`, with
/// `shards` (JSON objects) in file "f.safetensors".
void writeIndex(const std::string &dir, const std::string &shape,
                const std::vector<std::string> &shards) {
  fs::create_directories(dir);
  std::ofstream out(dir + "/index.json");
  out << R"({"format": "spmd-checkpoint", "version": 1, "generation": "0",)"
      << R"( "chunk_bytes": 262144, "tensors": {"w": {"dtype": "F32",)"
      << R"( "shape": )" << shape << R"(, "shards": [)";
  for (size_t i = 0; i < shards.size(); ++i)
    out << (i ? "," : "") << shards[i];
  out << "]}}}";
}

std::string shardJson(int64_t begin, int64_t end, int64_t offset) {
  std::string checksums = end > begin ? R"("0000000000000000")" : "";
  return R"({"file": "f.safetensors", "byte_range": [)" +
         std::to_string(offset) + ", " +
         std::to_string(offset + 4 * (end - begin)) + R"(], "begin": [)" +
         std::to_string(begin) + R"(], "end": [)" + std::to_string(end) +
         R"(], "checksums": [)" + checksums + "]}";
}

// Fewer under the sanitizers, which make parsing the index slower.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPMD_UNDER_ASAN
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SPMD_UNDER_ASAN
#endif
#ifdef SPMD_UNDER_ASAN
constexpr int64_t kManyShards = 20000;
#else
constexpr int64_t kManyShards = 100000;
#endif

TEST(Checkpoint, HostileIndexesAreRefusedQuickly) {
  std::string dir = scratch("hostile");
  auto load = [&] {
    return spmd::load_checkpoint(dir, {{"w", {kMesh1, {None}}}}).status();
  };
  // 100,000 one-element shards: read and checked in about a second (a
  // pairwise overlap check takes a minute), then the file is missing.
  std::vector<std::string> many;
  for (int64_t i = 0; i < kManyShards; ++i)
    many.push_back(shardJson(i, i + 1, 4 * i));
  writeIndex(dir, "[" + std::to_string(kManyShards) + "]", many);
  auto start = std::chrono::steady_clock::now();
  absl::Status status = load();
  EXPECT_LT(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count(),
      20.0);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  // Overlapping shards whose sizes add up to the tensor's.
  writeIndex(dir, "[4]", {shardJson(0, 2, 0), shardJson(1, 3, 8)});
  EXPECT_NE(load().message().find("overlap"), std::string::npos) << load();
  // A tensor larger than one tensor may be here (SPMD_MAX_TENSOR_BYTES):
  // refused before anything is allocated.
  writeIndex(dir, "[4]", {shardJson(0, 4, 0)});
  setenv("SPMD_MAX_TENSOR_BYTES", "15", 1);
  status = load();
  unsetenv("SPMD_MAX_TENSOR_BYTES");
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  // Begins and ends that cut the tensor into too many pieces to check.
  writeIndex(dir, "[1000000, 1000000]",
             {R"({"file": "f.safetensors", "byte_range": [0, 0], )"
              R"("begin": [1, 1], "end": [1, 999999], "checksums": []})",
              R"({"file": "f.safetensors", "byte_range": [0, 0], )"
              R"("begin": [2, 2], "end": [2, 999998], "checksums": []})"});
  EXPECT_FALSE(load().ok());
  // Indexes nested 100,000 levels deep overflowed the JSON parser's stack.
  std::string deep = std::string(100000, '[') + std::string(100000, ']') + "\n";
  for (const char *index : {"index.json", "model.safetensors.index.json"}) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir + "/" + index) << deep;
    status = load();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_NE(status.message().find(index), std::string::npos) << status;
    EXPECT_NE(status.message().find("nests more than"), std::string::npos)
        << status;
  }
  fs::remove_all(dir);
}

/// A shard smaller than a checksum chunk, loaded by devices that each read
/// a part of it: the parts together cover the chunk, so a flipped bit is
/// found wherever it is.
TEST(Checkpoint, CorruptionInChunksReadInPartsIsFound) {
  std::string dir = scratch("parts");
  spmd::HostTensor host = patterned(spmd::DType::F32, {8, 1024}, 5);
  ASSERT_TRUE(spmd::save_checkpoint(
                  dir, {{"w", *spmd::mark_sharding(host, kMesh1, {})}})
                  .ok());
  std::string shard = shardFileIn(dir);
  std::string original = readAll(shard);
  const spmd::Mesh line({0, 1, 2, 3, 4, 5, 6, 7}, {8}, {"d"});
  for (const spmd::PartitionSpec &spec :
       {spmd::PartitionSpec{"d", None}, spmd::PartitionSpec{None, "d"}}) {
    for (size_t at : {original.size() - 1, original.size() - 20000}) {
      std::string flipped = original;
      flipped[at] ^= 1;
      std::ofstream(shard, std::ios::binary | std::ios::trunc) << flipped;
      auto loaded = spmd::load_checkpoint(dir, {{"w", {line, spec}}});
      ASSERT_FALSE(loaded.ok());
      EXPECT_NE(loaded.status().message().find("checksum"), std::string::npos)
          << loaded.status();
    }
    std::ofstream(shard, std::ios::binary | std::ios::trunc) << original;
    auto loaded = spmd::load_checkpoint(dir, {{"w", {line, spec}}});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    expectSameBits(host, *loaded->at("w").to_host(), "w");
  }
  fs::remove_all(dir);
}

TEST(Checkpoint, NamesThatCannotBeSavedAreAnError) {
  std::string dir = scratch("names");
  spmd::HostTensor host = patterned(spmd::DType::F32, {4, 2}, 1);
  auto whole = *spmd::mark_sharding(host, kMesh1, {});
  auto split = *spmd::mark_sharding(host, kMesh2x4, {"data"});
  for (const auto &tensors :
       std::vector<std::map<std::string, spmd::ShardedTensor>>{
           {{"", whole}},
           {{"__metadata__", whole}},
           {{"w\xff", whole}},
           {{"w", split}, {"w[0:2,0:2]", whole}}}) {
    absl::Status status = spmd::save_checkpoint(dir, tensors);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  }
  fs::remove_all(dir);
}

TEST(Checkpoint, MisuseIsAnError) {
  std::string dir = scratch("misuse");
  EXPECT_FALSE(spmd::save_checkpoint(dir, {{"w", spmd::ShardedTensor()}}).ok());
  spmd::HostTensor host = patterned(spmd::DType::F32, {4, 4}, 1);
  ASSERT_TRUE(spmd::save_checkpoint(
                  dir, {{"w", *spmd::mark_sharding(host, kMesh1, {})}})
                  .ok());
  // A spec longer than the rank, an unknown axis.
  EXPECT_FALSE(
      spmd::load_checkpoint(dir, {{"w", {kMesh1, {None, None, None}}}}).ok());
  EXPECT_FALSE(
      spmd::load_checkpoint(dir, {{"w", {kMesh1, {"nope", None}}}}).ok());
  // A file where the folder should be.
  std::string file = dir + "/index.json";
  EXPECT_FALSE(spmd::save_checkpoint(
                   file, {{"w", *spmd::mark_sharding(host, kMesh1, {})}})
                   .ok());
  fs::remove_all(dir);
}

/// A safetensors file of `entries` (name, dtype, shape, bytes), written as
/// the format's spec says.
struct Entry {
  std::string name, dtype;
  std::vector<int64_t> shape;
  std::string bytes;
};
void writePlainFile(const std::string &path,
                    const std::vector<Entry> &entries) {
  std::string header = "{", data;
  for (const Entry &e : entries) {
    std::string shape;
    for (int64_t d : e.shape)
      shape += (shape.empty() ? "" : ",") + std::to_string(d);
    header += (header.size() > 1 ? "," : "") + ("\"" + e.name + "\":") +
              "{\"dtype\":\"" + e.dtype + "\",\"shape\":[" + shape +
              "],\"data_offsets\":[" + std::to_string(data.size()) + "," +
              std::to_string(data.size() + e.bytes.size()) + "]}";
    data += e.bytes;
  }
  header += "}";
  std::string length(8, '\0');
  for (int i = 0; i < 8; ++i)
    length[i] = char((header.size() >> (8 * i)) & 0xff);
  std::ofstream(path, std::ios::binary) << length << header << data;
}

/// A save removes the files of older saves and of unfinished ones, and
/// nothing else it finds in the folder.
TEST(Checkpoint, ASaveRemovesOnlyTheFilesSavesWrite) {
  std::string dir = scratch("stray");
  fs::create_directories(dir);
  for (const char *name :
       {"shards-notes.txt", "export.safetensors.tmp",
        "shards-x-00000.safetensors", "shards-0123456789abc-00000.safetensors",
        "shards-0123456789abc-00001.safetensors.tmp", "index.json.tmp"})
    std::ofstream(dir + "/" + name) << "mine";
  spmd::HostTensor host = patterned(spmd::DType::F32, {4, 4}, 1);
  ASSERT_TRUE(spmd::save_checkpoint(
                  dir, {{"w", *spmd::mark_sharding(host, kMesh1, {})}})
                  .ok());
  std::vector<std::string> files = filesIn(dir);
  for (const char *kept : {"shards-notes.txt", "export.safetensors.tmp",
                           "shards-x-00000.safetensors"})
    EXPECT_NE(std::find(files.begin(), files.end(), kept), files.end()) << kept;
  for (const char *gone :
       {"shards-0123456789abc-00000.safetensors",
        "shards-0123456789abc-00001.safetensors.tmp", "index.json.tmp"})
    EXPECT_EQ(std::find(files.begin(), files.end(), gone), files.end()) << gone;
  fs::remove_all(dir);
}

/// Two saves into one folder at once: the second is refused (each would
/// remove the other's files), and the first stays whole.
TEST(Checkpoint, OverlappingSavesIntoOneFolderAreRefused) {
  std::string dir = scratch("overlap");
  spmd::HostTensor host = patterned(spmd::DType::F32, {4, 4}, 1);
  auto placed = *spmd::mark_sharding(host, kMesh1, {});
  ASSERT_TRUE(spmd::save_checkpoint(dir, {{"w", placed}}).ok());
  // A save under way holds the folder's lock.
  int held = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);
  absl::Status refused = spmd::save_checkpoint(dir, {{"v", placed}});
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_NE(refused.message().find("another save"), std::string::npos)
      << refused;
  ::close(held);
  expectLoadsAs(dir, {{"w", host}}, kMesh1, {});
  EXPECT_TRUE(spmd::save_checkpoint(dir, {{"v", placed}}).ok());
  fs::remove_all(dir);
}

/// Loading some tensors reads only their files: another file missing, or
/// holding a type this runtime lacks, is no error unless it is asked for.
TEST(Checkpoint, ASubsetReadsOnlyWhatItNeeds) {
  std::string dir = scratch("subset");
  fs::create_directories(dir);
  std::string four(16, '\1');
  writePlainFile(dir + "/a.safetensors", {{"a", "F32", {4}, four},
                                          {"q", "U8", {4}, "\1\2\3\4"},
                                          {"f8", "F8_E4M3", {2, 2}, "abcd"}});
  std::ofstream(dir + "/model.safetensors.index.json")
      << R"({"metadata": {}, "weight_map": {"a": "a.safetensors",)"
      << R"( "q": "a.safetensors", "b": "missing.safetensors"}})";
  auto load = [&](const std::string &path, const std::string &name) {
    return spmd::load_checkpoint(path, {{name, {kMesh2x4, {"data"}}}});
  };
  for (const std::string &path : {dir, dir + "/a.safetensors"}) {
    auto a = load(path, "a");
    ASSERT_TRUE(a.ok()) << a.status();
    auto q = load(path, "q");
    EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(q.status().message().find("dtype \"U8\" is not one this runtime "
                                        "holds"),
              std::string::npos)
        << q.status();
  }
  EXPECT_EQ(load(dir, "b").status().code(), absl::StatusCode::kNotFound);
  // A dtype the format lacks is refused, whatever is asked for.
  writePlainFile(dir + "/bad.safetensors",
                 {{"a", "F32", {4}, four}, {"z", "Q7", {1}, "x"}});
  auto bad = load(dir + "/bad.safetensors", "a");
  EXPECT_NE(bad.status().message().find("not one of the format's"),
            std::string::npos)
      << bad.status();
  fs::remove_all(dir);
}

/// An index named by a bare file name is in the working folder; a folder
/// where a file should be is the wrong kind of path.
TEST(Checkpoint, PathsAsUsersGiveThem) {
  std::string dir = scratch("paths");
  spmd::HostTensor host = patterned(spmd::DType::F32, {4, 4}, 1);
  ASSERT_TRUE(spmd::save_checkpoint(
                  dir, {{"w", *spmd::mark_sharding(host, kMesh1, {})}})
                  .ok());
  fs::path cwd = fs::current_path();
  fs::current_path(dir);
  auto loaded = spmd::load_checkpoint("index.json", {{"w", {kMesh1, {}}}});
  fs::current_path(cwd);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  expectSameBits(host, *loaded->at("w").to_host(), "w");
  std::string shard = shardFileIn(dir);
  fs::remove(shard);
  fs::create_directory(shard);
  auto wrongKind = spmd::load_checkpoint(dir, {{"w", {kMesh1, {}}}});
  EXPECT_EQ(wrongKind.status().code(), absl::StatusCode::kFailedPrecondition)
      << wrongKind.status();
  fs::remove_all(dir);
}

/// A bool that is neither 0 nor 1 is named by its place in the tensor,
/// whichever device's piece holds it.
TEST(Checkpoint, ABadBoolIsNamedByItsElement) {
  std::string dir = scratch("bools");
  fs::create_directories(dir);
  std::string bools(24, '\1');
  bools[23] = 2;
  writePlainFile(dir + "/b.safetensors", {{"c", "BOOL", {4, 6}, bools}});
  for (const spmd::PartitionSpec &spec :
       {spmd::PartitionSpec{}, spmd::PartitionSpec{"data", "model"},
        spmd::PartitionSpec{None, "model"}}) {
    auto loaded = spmd::load_checkpoint(dir + "/b.safetensors",
                                        {{"c", {kMesh2x4, spec}}});
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(loaded.status().message().find("element 23 is 2"),
              std::string::npos)
        << loaded.status();
  }
  fs::remove_all(dir);
}

/// With SPMD_INTEROP_DIR (tests/tools/safetensors_interop.py sets it): the
/// files another writer made there load sharded, byte for byte, and are
/// saved as a checkpoint for that writer's reader.
TEST(CheckpointInterop, LoadsAnotherWritersFilesAndSavesForItsReader) {
  const char *dir = std::getenv("SPMD_INTEROP_DIR");
  if (!dir)
    GTEST_SKIP() << "run by tests/tools/safetensors_interop.py";
  const char *names[] = {"F32", "F64", "F16", "BF16", "BOOL",
                         "I8",  "I16", "I32", "I64"};
  std::map<std::string, spmd::HostTensor> expected;
  std::map<std::string, std::pair<spmd::Mesh, spmd::PartitionSpec>> targets;
  for (size_t seed = 0; seed < std::size(kEveryType); ++seed) {
    std::string name = std::string("t_") + names[seed];
    expected[name] = patterned(kEveryType[seed], {5, 12}, int(seed));
    // Every other tensor split the other way round.
    targets.emplace(
        name, std::make_pair(kMesh2x4,
                             seed % 2 ? spmd::PartitionSpec{"data", "model"}
                                      : spmd::PartitionSpec{"model", "data"}));
  }
  std::string base(dir);
  for (const std::string &source :
       {base + "/other.safetensors", base + "/hub"}) {
    auto loaded = spmd::load_checkpoint(source, targets);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    for (const auto &[name, host] : expected)
      expectSameBits(host, *loaded->at(name).to_host(), source + " " + name);
    ASSERT_TRUE(spmd::save_checkpoint(base + "/ours", *loaded).ok());
  }
}

} // namespace
