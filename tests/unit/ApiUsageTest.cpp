//===- ApiUsageTest.cpp - The API as a torch_xla user expects it ----------===//
//
// Devices that exist, runtime queries, shardings that follow the data,
// errors that read like the tools', and one Program used from many threads.
//
//===----------------------------------------------------------------------===//

#include "ApiTestSupport.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <thread>

#include <sched.h>
#include <unistd.h>

using spmd::None;
using spmd_test::iota;
using spmd_test::maxDiff;

namespace {
/// Sets an environment variable for a scope, restoring it after.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (saved)
      setenv(name, saved->c_str(), 1);
    else
      unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> saved;
};

int64_t coresOfThisProcess() {
  cpu_set_t cores;
  EXPECT_EQ(sched_getaffinity(0, sizeof(cores), &cores), 0);
  return CPU_COUNT(&cores);
}

std::vector<int64_t> ids(int64_t n) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

const char *kLinear = R"mlir(
func.func @linear(%x: tensor<16x128xf32>, %w: tensor<128x64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<16x128xf32>, tensor<128x64xf32>)
                     outs(%f : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
})mlir";

/// What kLinear computes on one device, from host data.
spmd::HostTensor linearOnOneDevice(const spmd::HostTensor &x,
                                   const spmd::HostTensor &w) {
  auto program = spmd::Program::fromString(kLinear);
  EXPECT_TRUE(program.ok()) << program.status();
  auto out = program->run({x, w});
  EXPECT_TRUE(out.ok()) << out.status();
  return *(*out)[0].to_host();
}
} // namespace

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

TEST(Devices, OnePerCoreUnlessSpmdNumDevicesSaysOtherwise) {
  int64_t cores = coresOfThisProcess();
  {
    ScopedEnv unset("SPMD_NUM_DEVICES", nullptr);
    EXPECT_EQ(spmd::addressable_device_count(), cores);
    EXPECT_EQ(spmd::global_runtime_device_count(), cores);
    // torch_xla's idiom: (num_devices // 2, 2), on the devices there are.
    int64_t n = spmd::global_runtime_device_count();
    if (n >= 2) {
      spmd::Mesh mesh(ids(n / 2 * 2), {n / 2, 2}, {"data", "model"});
      EXPECT_TRUE(
          spmd::mark_sharding(iota({4, 4}), mesh, {"data", "model"}).ok());
    }
    // A mesh larger than the devices is refused, saying how to get more.
    int64_t more = 2 * cores;
    spmd::Mesh big(ids(more), {more});
    absl::Status refused = spmd::mark_sharding(iota({more}), big, {0}).status();
    EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_ERROR(refused, "the mesh has " + std::to_string(more) +
                              " devices but " + std::to_string(cores) +
                              " exist");
    EXPECT_ERROR(refused, "SPMD_NUM_DEVICES=" + std::to_string(more));
    // The user guide's 4x2 mesh, on a machine of fewer cores.
    if (cores < 8)
      EXPECT_ERROR(
          spmd::mark_sharding(iota({8, 2}), spmd::Mesh(ids(8), {4, 2}), {0, 1})
              .status(),
          "set SPMD_NUM_DEVICES=8 for more virtual devices");
    // So is a loader given it, at once.
    EXPECT_ERROR(
        spmd::ParallelLoader::create(
            [] { return std::optional<std::vector<spmd::HostTensor>>(); },
            {{big, {0}}})
            .status(),
        "input_sharding 0: the mesh has");
    // A HybridMesh states its devices per process: taken as written, and
    // the memory of each of its devices can be asked for.
    spmd::HybridMesh hybrid({more}, {1}, {"x"});
    auto onHybrid = spmd::mark_sharding(iota({more, 256}), hybrid, {"x"});
    EXPECT_TRUE(onHybrid.ok()) << onHybrid.status();
    auto last = spmd::get_memory_info(more - 1);
    ASSERT_TRUE(last.ok()) << last.status();
    EXPECT_GE(last->bytes_used, 256 * 4);
  }
  {
    ScopedEnv eight("SPMD_NUM_DEVICES", "8");
    EXPECT_EQ(spmd::global_runtime_device_count(), 8);
    spmd::Mesh mesh(ids(8), {4, 2}, {"data", "model"});
    EXPECT_TRUE(spmd::mark_sharding(iota({8, 4}), mesh, {"data", None}).ok());
  }
  for (const char *bad : {"0", "-3", "many", "8192000", " 4"}) {
    ScopedEnv set("SPMD_NUM_DEVICES", bad);
    spmd::Mesh one({0}, {1});
    EXPECT_ERROR(spmd::mark_sharding(iota({2}), one, {None}).status(),
                 std::string("SPMD_NUM_DEVICES=") + bad +
                     " is not an integer in [1, 8192]");
    EXPECT_EQ(spmd::addressable_device_count(), cores);
  }
}

TEST(Devices, RuntimeQueriesAsTorchXla) {
  ScopedEnv four("SPMD_NUM_DEVICES", "4");
  EXPECT_EQ(spmd::local_device_count(), 4);
  EXPECT_EQ(spmd::global_ordinal(), 0);
  EXPECT_EQ(spmd::local_ordinal(), 0);
  EXPECT_TRUE(spmd::is_master_ordinal());
  EXPECT_TRUE(spmd::is_master_ordinal(/*local=*/false));
  EXPECT_EQ(spmd::device_type(), "CPU");
  for (int64_t bad : {int64_t(-1), int64_t(1) << 24, int64_t(1) << 40})
    EXPECT_EQ(spmd::get_memory_info(bad).status().code(),
              absl::StatusCode::kOutOfRange);

  // A placed tensor counts for the devices holding it, until it is freed.
  auto before = spmd::get_memory_info(1);
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_GT(before->bytes_limit, 0);
  spmd::Mesh mesh(ids(4), {4}, {"x"});
  {
    auto placed = spmd::mark_sharding(iota({1024, 256}), mesh, {"x", None});
    ASSERT_TRUE(placed.ok()) << placed.status();
    // Each device holds a quarter: 256 rows of 256 floats.
    EXPECT_EQ(spmd::get_memory_info(1)->bytes_used - before->bytes_used,
              256 * 256 * 4);
    // And the results of a run kept on the devices too.
    auto program = spmd::Program::fromString(R"mlir(
func.func @f(%a: tensor<1024x256xf32>) -> tensor<1024x256xf32> {
  %e = math.exp %a : tensor<1024x256xf32>
  return %e : tensor<1024x256xf32>
})mlir");
    ASSERT_TRUE(program.ok());
    auto out = program->run({*placed});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(spmd::get_memory_info(1)->bytes_used - before->bytes_used,
              2 * 256 * 256 * 4);
    // And tensors loaded from a checkpoint, replicas included.
    std::string dir = ::testing::TempDir() + "/memory_info_checkpoint";
    ASSERT_TRUE(spmd::save_checkpoint(dir, {{"t", *placed}}).ok());
    auto loaded = spmd::load_checkpoint(
        dir, {{"t", {spmd::Mesh(ids(4), {2, 2}, {"a", "b"}), {"a", None}}}});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(spmd::get_memory_info(1)->bytes_used - before->bytes_used,
              2 * 256 * 256 * 4 + 512 * 256 * 4);
  }
  EXPECT_EQ(spmd::get_memory_info(1)->bytes_used, before->bytes_used);
}

TEST(Devices, PiecesOfPaddingHaveClampedIndices) {
  // 5 rows over 4 devices: 2, 2, 1 and none; the last starts at the end.
  spmd::Mesh mesh(ids(4), {4}, {"x"});
  auto placed = spmd::mark_sharding(iota({5, 3}), mesh, {"x", None});
  ASSERT_TRUE(placed.ok()) << placed.status();
  std::vector<std::pair<int64_t, int64_t>> rows;
  for (const auto &shard : placed->local_shards())
    rows.push_back(shard.indices[0]);
  EXPECT_EQ(rows, (std::vector<std::pair<int64_t, int64_t>>{
                      {0, 2}, {2, 4}, {4, 5}, {5, 5}}));
}

//===----------------------------------------------------------------------===//
// Shardings that follow the data
//===----------------------------------------------------------------------===//

TEST(FollowData, TorchXlaUserGuideExampleNeedsNoAnnotation) {
  spmd::HostTensor hostX = iota({16, 128}), hostW = iota({128, 64});
  // torch_xla's user-guide example, statement for statement (8 of them):
  // a 4x2 mesh, the input split (0, None), the weight split (None, 1).
  int64_t num_devices = spmd::global_runtime_device_count();
  spmd::Mesh mesh(ids(num_devices), {num_devices / 2, 2}, {"data", "model"});
  auto program = spmd::Program::fromString(kLinear);
  auto x = spmd::mark_sharding(hostX, mesh, {0, None});
  auto w = spmd::mark_sharding(hostW, mesh, {None, 1});
  auto y = program->run({*x, *w});
  ASSERT_TRUE(y.ok()) << y.status();
  auto host = (*y)[0].to_host();

  ASSERT_EQ(num_devices, 8) << "ctest runs this with SPMD_NUM_DEVICES=8";
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_LT(maxDiff(*host, linearOnOneDevice(hostX, hostW)), 1e-4);
  // The marks on the data decided: the output is split as x's rows and
  // w's columns, and the program the user wrote is unchanged.
  EXPECT_EQ((*y)[0].sharding(), "<@mesh, [{\"data\"}, {\"model\"}]>");
  EXPECT_EQ(program->to_string().find("spmd.sharding"), std::string::npos);
  auto partitioned = program->partitioned();
  ASSERT_TRUE(partitioned.ok()) << partitioned.status();
  EXPECT_NE(partitioned->find("tensor<4x128xf32>"), std::string::npos)
      << *partitioned;
  EXPECT_NE(partitioned->find("tensor<128x32xf32>"), std::string::npos);
}

TEST(FollowData, EachInputShardingCompilesOnce) {
  spmd::Mesh mesh(ids(4), {2, 2}, {"a", "b"});
  spmd::HostTensor hostX = iota({16, 128}), hostW = iota({128, 64});
  spmd::HostTensor expected = linearOnOneDevice(hostX, hostW);
  auto program = spmd::Program::fromString(kLinear);
  ASSERT_TRUE(program.ok());
  auto rows = spmd::mark_sharding(hostX, mesh, {"a", None});
  auto cols = spmd::mark_sharding(hostX, mesh, {None, "b"});
  auto w = spmd::mark_sharding(hostW, mesh, {None, None});
  ASSERT_TRUE(rows.ok() && cols.ok() && w.ok());

  auto run = [&](const spmd::ShardedTensor &x) {
    auto y = program->run({x, *w});
    EXPECT_TRUE(y.ok()) << y.status();
    EXPECT_LT(maxDiff(*(*y)[0].to_host(), expected), 1e-4);
    return *program->partitioned();
  };
  int64_t misses = spmd::counter_value("cache_misses");
  std::string byRows = run(*rows);
  std::string byCols = run(*cols);
  EXPECT_NE(byRows, byCols);
  EXPECT_EQ(spmd::counter_value("cache_misses"), misses + 2);
  // Back to the first sharding: no compile.
  EXPECT_EQ(run(*rows), byRows);
  EXPECT_EQ(spmd::counter_value("cache_misses"), misses + 2);
  // Host data for an argument without sharding is replicated, as before.
  auto y = program->run({hostX, *w});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_LT(maxDiff(*(*y)[0].to_host(), expected), 1e-4);

  // A mark on the argument wins: the input moves on the devices.
  ASSERT_TRUE(
      program->mark_sharding(program->argument(0), mesh, {None, "a"}).ok());
  int64_t reshards = spmd::counter_value("device_reshards");
  y = program->run({*rows, *w});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(spmd::counter_value("device_reshards"), reshards + 1);
  EXPECT_LT(maxDiff(*(*y)[0].to_host(), expected), 1e-4);
}

TEST(FollowData, InputsOnTwoMeshesAreAnError) {
  spmd::Mesh first(ids(4), {2, 2}, {"a", "b"});
  spmd::Mesh second({3, 2, 1, 0}, {4}, {"c"});
  auto program = spmd::Program::fromString(kLinear);
  ASSERT_TRUE(program.ok());
  auto x = spmd::mark_sharding(iota({16, 128}), first, {"a", None});
  auto w = spmd::mark_sharding(iota({128, 64}), second, {None, "c"});
  ASSERT_TRUE(x.ok() && w.ok());
  EXPECT_ERROR(program->run({*x, *w}).status(),
               "input 1 is on the mesh <[\"c\"=4], device_ids=[3, 2, 1, 0]>");
  EXPECT_ERROR(program->run({*x}).status(), "@linear takes 2 inputs but 1");
  EXPECT_ERROR(program->run({*x, iota({128, 65})}).status(),
               "input 1 is f32[128, 65] but the program takes f32[128, 64]");
}

//===----------------------------------------------------------------------===//
// Errors and counters
//===----------------------------------------------------------------------===//

TEST(ApiErrors, LocationsReadLikeTheTools) {
  auto bad =
      spmd::Program::fromString("func.func @f() {\n  %x = arith.constant "
                                "1 : tensor<2xf32>\n  return\n}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(std::string(bad.status().message()).rfind("<string>:2:", 0), 0u)
      << bad.status().message();
  EXPECT_ERROR(bad.status(), ": error: ");
  EXPECT_EQ(std::string(bad.status().message()).find("loc("),
            std::string::npos);

  // An op of a dialect the compiler does not know: advice for a C++ user,
  // not a flag of a command-line tool.
  auto unknown = spmd::Program::fromString(
      "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %b = \"foo.bar\"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
      "  return %b : tensor<2xf32>\n}\n");
  ASSERT_FALSE(unknown.ok());
  std::string message(unknown.status().message());
  EXPECT_EQ(message.rfind("<string>:2:", 0), 0u) << message;
  EXPECT_EQ(message.find("allow-unregistered-dialect"), std::string::npos)
      << message;
  EXPECT_NE(message.find("linalg"), std::string::npos) << message;

  std::string path = ::testing::TempDir() + "/bad_program.mlir";
  std::ofstream(path) << "func.func @f() {\n  return %nothing : f32\n}\n";
  auto fromFile = spmd::Program::fromFile(path);
  ASSERT_FALSE(fromFile.ok());
  EXPECT_EQ(std::string(fromFile.status().message()).rfind(path + ":2:", 0), 0u)
      << fromFile.status().message();

  // A value that is no tensor: what it is, named.
  auto scalar = spmd::Program::fromString(R"mlir(
func.func @f(%a: f32, %b: tensor<f32>) -> f32 {
  return %a : f32
})mlir");
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  spmd::Mesh one({0}, {1}, {"x"});
  EXPECT_ERROR(scalar->mark_sharding(scalar->argument(0), one, {}),
               "only ranked tensors are sharded; the value is f32");
  // A 0-d tensor is a tensor.
  EXPECT_TRUE(scalar->mark_sharding(scalar->argument(1), one, {}).ok());
}

TEST(ApiErrors, CodesFollowTheTable) {
  EXPECT_EQ(spmd::HybridMesh::fromFile("/no/such/mesh.yaml").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(spmd::Program::fromFile("/no/such/program.mlir").status().code(),
            absl::StatusCode::kNotFound);
  std::string file = ::testing::TempDir() + "/a_file_not_a_folder";
  std::ofstream(file) << "x";
  EXPECT_EQ(spmd::initialize_cache(file).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(spmd::initialize_cache(file, /*readonly=*/true).code(),
            absl::StatusCode::kFailedPrecondition);
  // A checkpoint saved where a file is.
  spmd::Mesh one({0}, {1}, {"x"});
  auto placed =
      spmd::mark_sharding(spmd::HostTensor(spmd::DType::F32, {2}), one, {"x"});
  ASSERT_TRUE(placed.ok()) << placed.status();
  EXPECT_EQ(spmd::save_checkpoint(file, {{"w", *placed}}).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(spmd::initialize_cache("/no/such/cache", /*readonly=*/true).code(),
            absl::StatusCode::kNotFound);
  // A link to nothing says so (it read as a folder that vanished as it
  // was made).
  std::string dangling = ::testing::TempDir() + "/a_link_to_nothing";
  ::unlink(dangling.c_str());
  ASSERT_EQ(::symlink("/no/such/target", dangling.c_str()), 0);
  absl::Status linked = spmd::initialize_cache(dangling);
  EXPECT_EQ(linked.code(), absl::StatusCode::kFailedPrecondition) << linked;
  EXPECT_NE(std::string(linked.message()).find("symbolic link to nothing"),
            std::string::npos)
      << linked;
  ::unlink(dangling.c_str());
}

TEST(ApiErrors, BuiltProgramsHaveNoPlaceToName) {
  // The tensor builder's ops have no location: `error: ...`, never MLIR's
  // `loc(unknown)`.
  auto program = spmd::Program::build();
  spmd::Value x = program.parameter({int64_t(1) << 20, int64_t(1) << 20});
  ASSERT_TRUE(program.output({program.relu(x)}).ok());
  absl::Status compiled = program.compile();
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(std::string(compiled.message()).rfind("error: ", 0), 0u)
      << compiled.message();
  EXPECT_EQ(std::string(compiled.message()).find("loc("), std::string::npos);
}

TEST(ApiErrors, CompileOptionsAreCheckedWhateverTheyAskFor) {
  auto program = spmd::Program::fromString(kLinear);
  ASSERT_TRUE(program.ok());
  for (spmd::Program::CompileOptions options :
       {spmd::Program::CompileOptions{false, -1, 10},
        spmd::Program::CompileOptions{false, 0, 0.5},
        spmd::Program::CompileOptions{false, 0, NAN},
        spmd::Program::CompileOptions{true, 0, INFINITY}})
    EXPECT_ERROR(program->compile(options),
                 "the compile options need memory_budget >= 0");
  EXPECT_TRUE(program->compile({false, 0, 1e6}).ok());
}

TEST(ApiErrors, CodesOfPathsAndEmptyTensors) {
  std::string folder = ::testing::TempDir();
  EXPECT_EQ(spmd::Program::fromFile(folder).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(spmd::HybridMesh::fromFile(folder).status().code(),
            absl::StatusCode::kFailedPrecondition);
  std::string file = folder + "/not_a_batch_folder";
  std::ofstream(file) << "x";
  spmd::Mesh one({0}, {1}, {"x"});
  EXPECT_EQ(spmd::ParallelLoader::fromFolder(file, {{one, {}}}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(spmd::Program::fromString(kLinear, "nothing").status().code(),
            absl::StatusCode::kNotFound);
  auto program = spmd::Program::fromString(kLinear);
  ASSERT_TRUE(program.ok());
  EXPECT_EQ(
      program->run({spmd::ShardedTensor(), iota({128, 64})}).status().code(),
      absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(spmd::save_checkpoint(folder + "/empty_tensor_checkpoint",
                                  {{"t", spmd::ShardedTensor()}})
                .code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ApiCompile, CompilingAgainIsACacheHit) {
  auto program = spmd::Program::fromString(kLinear);
  ASSERT_TRUE(program.ok());
  ASSERT_TRUE(program->compile().ok());
  int64_t hits = spmd::counter_value("cache_hits");
  int64_t misses = spmd::counter_value("cache_misses");
  ASSERT_TRUE(program->compile().ok());
  EXPECT_EQ(spmd::counter_value("cache_hits"), hits + 1);
  EXPECT_EQ(spmd::counter_value("cache_misses"), misses);
}

//===----------------------------------------------------------------------===//
// Threads
//===----------------------------------------------------------------------===//

TEST(ProgramThreads, OneProgramFromEightThreadsForTenSeconds) {
  spmd::Mesh mesh(ids(4), {2, 2}, {"a", "b"});
  spmd::HostTensor hostX = iota({16, 128}), hostW = iota({128, 64});
  spmd::HostTensor expected = linearOnOneDevice(hostX, hostW);
  auto shared = spmd::Program::fromString(kLinear);
  ASSERT_TRUE(shared.ok());
  auto x = spmd::mark_sharding(hostX, mesh, {"a", None});
  ASSERT_TRUE(x.ok());

  std::atomic<bool> stop{false};
  std::atomic<int64_t> runs{0}, wrong{0};
  auto checkRun = [&](spmd::Program &program) {
    auto y = program.run({*x, hostW});
    if (!y.ok() || maxDiff(*(*y)[0].to_host(), expected) > 1e-4)
      ++wrong;
    ++runs;
  };
  std::vector<std::thread> threads;
  // Runners, markers, readers of one Program; and a Program of its own.
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&] {
      while (!stop)
        checkRun(*shared);
    });
  threads.emplace_back([&] {
    const spmd::PartitionSpec specs[] = {{"a", None}, {None, "b"}, {}};
    for (int i = 0; !stop; ++i) {
      const auto &spec = specs[i % 3];
      if (!shared->mark_sharding(shared->argument(1), mesh, spec).ok())
        ++wrong;
      if (i % 5 == 0 && !shared->clear_sharding(shared->argument(1)).ok())
        ++wrong;
    }
  });
  threads.emplace_back([&] {
    while (!stop) {
      if (shared->to_string().empty() || !shared->partitioned().ok())
        ++wrong;
      (void)shared->value("%y");
    }
  });
  threads.emplace_back([&] {
    while (!stop)
      if (!shared->compile().ok())
        ++wrong;
  });
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&] {
      auto own = spmd::Program::fromString(kLinear);
      while (!stop)
        checkRun(*own);
    });
  ASSERT_EQ(threads.size(), 8u);
  std::this_thread::sleep_for(std::chrono::seconds(10));
  stop = true;
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(runs, 10);
}
