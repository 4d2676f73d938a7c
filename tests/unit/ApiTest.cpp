//===- ApiTest.cpp - The public C++ API, as a user calls it ---------------===//
//
// Only <spmd/spmd.h>: meshes, specs, host tensors placed on devices, programs
// sharded with mark_sharding, the compile cache, and every misuse returning
// a status that names what is wrong.
//
//===----------------------------------------------------------------------===//

#include "ApiTestSupport.h"

#include <fstream>
#include <numeric>
#include <optional>
#include <unistd.h>

using spmd::None;
using spmd_test::iota;
using spmd_test::maxDiff;

namespace {
const char *kMatmul = R"mlir(
func.func @f(%a: tensor<6x8xf32>, %b: tensor<8x5xf32>) -> tensor<6x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x5xf32>) -> tensor<6x5xf32>
  %m = linalg.matmul ins(%a, %b : tensor<6x8xf32>, tensor<8x5xf32>)
                     outs(%f : tensor<6x5xf32>) -> tensor<6x5xf32>
  %t = math.tanh %m : tensor<6x5xf32>
  return %t : tensor<6x5xf32>
})mlir";

/// What `program` computes on one device.
std::vector<spmd::HostTensor> reference(const char *text,
                                        std::vector<spmd::Input> inputs) {
  auto program = spmd::Program::fromString(text);
  EXPECT_TRUE(program.ok()) << program.status();
  auto outputs = program->run(std::move(inputs));
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  std::vector<spmd::HostTensor> host;
  for (const spmd::ShardedTensor &t : *outputs)
    host.push_back(*t.to_host());
  return host;
}

spmd::Mesh mesh2x2() { return spmd::Mesh({0, 1, 2, 3}, {2, 2}, {"x", "y"}); }

} // namespace

TEST(Api, MeshDescribesItself) {
  spmd::Mesh mesh({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4}, {"data", "model"});
  ASSERT_TRUE(mesh.status().ok());
  EXPECT_EQ(mesh.size(), 8);
  auto shape = mesh.shape();
  ASSERT_EQ(shape.size(), 2u);
  EXPECT_EQ(shape[0], (std::pair<std::string, int64_t>{"data", 2}));
  EXPECT_EQ(shape[1], (std::pair<std::string, int64_t>{"model", 4}));
  EXPECT_EQ(mesh.get_logical_mesh().size(), 8u);
  spmd::HybridMesh hybrid({1, 4}, {1, 1}, {"data", "model"});
  ASSERT_TRUE(hybrid.status().ok()) << hybrid.status();
  EXPECT_EQ(hybrid.size(), 4);
  // Its DCN shape is the run's processes, as in a mesh config file.
  spmd::HybridMesh twoHosts({4}, {2}, {"x"});
  EXPECT_ERROR(twoHosts.status(),
               "'dcn_mesh_shape' describes 2 processes but 1 were started");
  spmd::set_global_mesh(mesh);
  ASSERT_TRUE(spmd::get_global_mesh().has_value());
  EXPECT_EQ(spmd::get_global_mesh()->size(), 8);
  EXPECT_EQ(spmd::world_size(), 1);
  EXPECT_EQ(spmd::process_index(), 0);
  EXPECT_GE(spmd::addressable_device_count(), 8);
}

TEST(Api, InvalidMeshesSayWhy) {
  EXPECT_ERROR(spmd::Mesh({0, 1, 2}, {2, 2}, {"x", "y"}).status(), "device");
  EXPECT_ERROR(spmd::Mesh({0, 1, 2, 3}, {2, 2}, {"x", "x"}).status(), "x");
  EXPECT_ERROR(spmd::Mesh({0, 1, 1, 3}, {2, 2}, {"x", "y"}).status(), "1");
  EXPECT_ERROR(spmd::Mesh({0, 1}, {2}, {"x", "y"}).status(), "axis names");
  // A mesh with more devices than exist: refused where it is used.
  int64_t tooMany = spmd::global_runtime_device_count() + 1;
  std::vector<int64_t> ids(tooMany);
  std::iota(ids.begin(), ids.end(), 0);
  spmd::Mesh huge(ids, {tooMany}, {"x"});
  EXPECT_ERROR(spmd::mark_sharding(iota({4}), huge, {"x"}).status(),
               "devices but");
  auto program = spmd::Program::fromString(kMatmul);
  ASSERT_TRUE(program.ok());
  EXPECT_ERROR(program->mark_sharding(program->argument(0), huge, {"x"}),
               "devices but");
}

TEST(Api, HostDataIsPlacedOnTheDevicesUnevenShapesIncluded) {
  spmd::HostTensor host = iota({5, 3});
  auto sharded = spmd::mark_sharding(host, mesh2x2(), {"x", None});
  ASSERT_TRUE(sharded.ok()) << sharded.status();
  std::vector<spmd::ShardedTensor::Shard> shards = sharded->local_shards();
  ASSERT_EQ(shards.size(), 4u);
  // Rows 0..3 on devices 0 and 1 (x = 0), rows 3..5 on 2 and 3.
  EXPECT_EQ(shards[0].indices[0], (std::pair<int64_t, int64_t>{0, 3}));
  EXPECT_EQ(shards[2].indices[0], (std::pair<int64_t, int64_t>{3, 5}));
  EXPECT_EQ(shards[3].device, 3);
  EXPECT_EQ(shards[2].data.shape(), (std::vector<int64_t>{3, 3}));
  auto back = sharded->to_host();
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(maxDiff(*back, host), 0);
  auto grid = spmd::visualize_sharding(*sharded);
  ASSERT_TRUE(grid.ok());
  EXPECT_NE(grid->find("0,1"), std::string::npos) << *grid;
  EXPECT_NE(grid->find("2,3"), std::string::npos) << *grid;
}

TEST(Api, SpecsAreCheckedAgainstTheMeshAndTheTensor) {
  spmd::HostTensor host = iota({4, 4});
  spmd::Mesh mesh = mesh2x2();
  EXPECT_ERROR(spmd::mark_sharding(host, mesh, {"x", None, None}).status(),
               "rank");
  EXPECT_ERROR(spmd::mark_sharding(host, mesh, {"z", None}).status(), "z");
  EXPECT_ERROR(spmd::mark_sharding(host, mesh, {"x", "x"}).status(), "twice");
  EXPECT_ERROR(spmd::mark_sharding(host, mesh, {{"x", 0}, None}).status(),
               "twice");
  EXPECT_ERROR(spmd::mark_sharding(host, mesh, {5, None}).status(), "index");
  // By index and as a tuple, major to minor.
  auto tuple = spmd::mark_sharding(host, mesh, {{1, "x"}, None});
  ASSERT_TRUE(tuple.ok()) << tuple.status();
  EXPECT_EQ(tuple->sharding(), "<@mesh, [{\"y\", \"x\"}, {}]>");
  EXPECT_EQ(tuple->local_shards()[1].indices[0],
            (std::pair<int64_t, int64_t>{2, 3}));
}

/// A manual region whose result is said to be replicated over "model"
/// but holds each device's partial product (the sum is missing).
const char *kPartialSums = R"mlir(
spmd.mesh @mesh = <["data"=2, "model"=2]>
func.func @partial_sums(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %y = spmd.manual_computation(%x, %w)
      in_shardings = [<@mesh, [{"data"}, {"model"}]>, <@mesh, [{"model"}, {}]>]
      out_shardings = [<@mesh, [{"data"}, {}]>]
      manual_axes = ["data", "model"]
      (%lx: tensor<4x8xf32>, %lw: tensor<8x8xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %p = linalg.matmul ins(%lx, %lw : tensor<4x8xf32>, tensor<8x8xf32>)
                       outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
    spmd.yield %p : tensor<4x8xf32>
  } : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
)mlir";

TEST(Api, CompileWarningsReachTheProgram) {
  auto program = spmd::Program::fromString(kPartialSums);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_TRUE(program->warnings().empty()) << "before the first compile";
  ASSERT_TRUE(program->compile().ok());
  std::vector<std::string> warnings = program->warnings();
  ASSERT_EQ(warnings.size(), 1u);
  // Located in the source the program was read from: the yield's line.
  EXPECT_EQ(warnings[0].rfind("<string>:14:5: warning: result 0 is said to be "
                              "the same on every device along \"model\"",
                              0),
            0u)
      << warnings[0];
  // A program compiled again from the cache keeps its warnings.
  auto again = spmd::Program::fromString(kPartialSums);
  ASSERT_TRUE(again.ok() && again->compile().ok());
  EXPECT_EQ(again->warnings(), warnings);

  auto clean = spmd::Program::fromString(kMatmul);
  ASSERT_TRUE(clean.ok() && clean->compile().ok());
  EXPECT_TRUE(clean->warnings().empty());

  // Auto-sharding imports the program too: the import's warning once.
  auto automatic = spmd::Program::fromString(kPartialSums);
  ASSERT_TRUE(automatic.ok());
  spmd::Program::CompileOptions options;
  options.auto_shard = true;
  absl::Status compiled = automatic->compile(options);
  ASSERT_TRUE(compiled.ok()) << compiled;
  EXPECT_EQ(automatic->warnings(), warnings);
}

TEST(Api, ShardedProgramMatchesOneDevice) {
  spmd::HostTensor a = iota({6, 8}), b = iota({8, 5}, 0.02f);
  std::vector<spmd::HostTensor> want = reference(kMatmul, {a, b});
  auto program = spmd::Program::fromString(kMatmul);
  ASSERT_TRUE(program.ok()) << program.status();
  spmd::Mesh mesh = mesh2x2();
  ASSERT_TRUE(program->mark_sharding(program->argument(0), mesh, {"x", "y"})
                  .ok());
  ASSERT_TRUE(program->mark_sharding(program->argument(1), mesh, {"y", None})
                  .ok());
  auto m = program->value("%m");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_TRUE(program->mark_sharding(*m, mesh, {None, "x"}).ok());
  EXPECT_NE(program->to_string().find("spmd.sharding_constraint"),
            std::string::npos);
  auto out = program->run({a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].local_shards().size(), 4u);
  EXPECT_LT(maxDiff(*(*out)[0].to_host(), want[0]), 1e-6);
  auto partitioned = program->partitioned();
  ASSERT_TRUE(partitioned.ok());
  EXPECT_NE(partitioned->find("spmd.all_reduce"), std::string::npos);

  // clear_sharding removes the constraint; the result stays right.
  ASSERT_TRUE(program->clear_sharding(*m).ok());
  EXPECT_EQ(program->to_string().find("spmd.sharding_constraint"),
            std::string::npos);
  auto again = program->run({a, b});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_LT(maxDiff(*(*again)[0].to_host(), want[0]), 1e-6);
}

TEST(Api, ShardedInputsStayOnTheDevices) {
  spmd::HostTensor a = iota({6, 8}), b = iota({8, 5}, 0.02f);
  std::vector<spmd::HostTensor> want = reference(kMatmul, {a, b});
  auto program = spmd::Program::fromString(kMatmul);
  ASSERT_TRUE(program.ok());
  spmd::Mesh mesh = mesh2x2();
  ASSERT_TRUE(program->mark_sharding(program->argument(0), mesh, {"x", None})
                  .ok());
  auto placed = spmd::mark_sharding(a, mesh, {"x", None});
  ASSERT_TRUE(placed.ok());
  for (int step = 0; step < 2; ++step) {
    auto out = program->run({*placed, b});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_LT(maxDiff(*(*out)[0].to_host(), want[0]), 1e-6);
  }
}

// A tensor placed in another sharding than the program takes is moved on
// the devices by collectives (counted), not through the host; across runs
// the same move is compiled once.
TEST(Api, InputsInAnotherShardingAreReshardedOnTheDevices) {
  spmd::HostTensor a = iota({6, 8}), b = iota({8, 5}, 0.02f);
  std::vector<spmd::HostTensor> want = reference(kMatmul, {a, b});
  auto program = spmd::Program::fromString(kMatmul);
  ASSERT_TRUE(program.ok());
  spmd::Mesh mesh = mesh2x2();
  ASSERT_TRUE(program->mark_sharding(program->argument(0), mesh, {"x", None})
                  .ok());
  ASSERT_TRUE(program->mark_sharding(program->argument(1), mesh, {"y", None})
                  .ok());
  // `a` split by columns, `b` replicated: both differ from the program's.
  auto columns = spmd::mark_sharding(a, mesh, {None, {"x", "y"}});
  auto whole = spmd::mark_sharding(b, mesh, {});
  ASSERT_TRUE(columns.ok() && whole.ok());
  int64_t moves = spmd::counter_value("device_reshards");
  // Columns to rows trades both axes between dimensions: one redistribute.
  int64_t moved = spmd::counter_value("bytes_redistribute");
  for (int step = 0; step < 2; ++step) {
    auto out = program->run({*columns, *whole});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_LT(maxDiff(*(*out)[0].to_host(), want[0]), 1e-6);
  }
  EXPECT_EQ(spmd::counter_value("device_reshards"), moves + 4);
  EXPECT_GT(spmd::counter_value("bytes_redistribute"), moved);
  // A tensor on another mesh is refused by name.
  spmd::Mesh other({3, 2, 1, 0}, {2, 2}, {"x", "y"});
  auto elsewhere = spmd::mark_sharding(a, other, {"x", None});
  ASSERT_TRUE(elsewhere.ok());
  EXPECT_ERROR(program->run({*elsewhere, b}).status(), "on the mesh");
}

TEST(Api, SecondCompileIsACacheHit) {
  auto program = spmd::Program::fromString(kMatmul);
  ASSERT_TRUE(program.ok());
  ASSERT_TRUE(program->mark_sharding(program->argument(1), mesh2x2(),
                                     {None, {"x", "y"}})
                  .ok());
  ASSERT_TRUE(program->compile().ok());
  int64_t hits = spmd::counter_value("cache_hits");
  int64_t misses = spmd::counter_value("cache_misses");
  // The same program marked the same way, from another Program object: a
  // hit.
  auto same = spmd::Program::fromString(kMatmul);
  ASSERT_TRUE(same.ok()) << same.status();
  ASSERT_TRUE(same->mark_sharding(same->argument(1), mesh2x2(),
                                  {None, {"x", "y"}})
                  .ok());
  ASSERT_TRUE(same->compile().ok());
  EXPECT_EQ(spmd::counter_value("cache_hits"), hits + 1);
  EXPECT_EQ(spmd::counter_value("cache_misses"), misses);
  // A changed sharding is compiled again.
  ASSERT_TRUE(same->mark_sharding(same->argument(0), mesh2x2(), {"x", None})
                  .ok());
  ASSERT_TRUE(same->compile().ok());
  EXPECT_EQ(spmd::counter_value("cache_misses"), misses + 1);
  EXPECT_NE(spmd::metrics_report().find("cache:"), std::string::npos);
  auto names = spmd::counter_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "cache_hits"), names.end());
}

// compile() with auto_shard: torch_xla's use_spmd(auto=True). The marked
// input keeps its sharding, the weights get one from the cost model (split
// when the budget forces it), and the results match one device.
TEST(Api, AutoShardChoosesWhatWasNotMarked) {
  const char *mlp = R"mlir(
func.func @mlp(%x: tensor<64x256xf32>, %w1: tensor<256x512xf32>,
               %w2: tensor<512x256xf32>) -> tensor<64x256xf32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x512xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<64x256xf32>, tensor<256x512xf32>) outs(%f1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %r = math.tanh %h : tensor<64x512xf32>
  %e2 = tensor.empty() : tensor<64x256xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %y = linalg.matmul ins(%r, %w2 : tensor<64x512xf32>, tensor<512x256xf32>) outs(%f2 : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
})mlir";
  spmd::HostTensor x = iota({64, 256}), w1 = iota({256, 512}, 0.02f),
                   w2 = iota({512, 256}, 0.03f);
  std::vector<spmd::HostTensor> want = reference(mlp, {x, w1, w2});
  auto program = spmd::Program::fromString(mlp);
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_TRUE(
      program->mark_sharding(program->argument(0), mesh2x2(), {"x", None})
          .ok());
  spmd::Program::CompileOptions options;
  options.auto_shard = true;
  ASSERT_TRUE(program->compile(options).ok());
  std::string report = program->auto_shard_report();
  EXPECT_NE(report.find("\"status\": \"optimal\""), std::string::npos)
      << report;
  auto out = program->run({x, w1, w2});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_LT(maxDiff(*(*out)[0].to_host(), want[0]), 1e-4);
  // The program keeps what the user marked only.
  EXPECT_EQ(program->to_string().find("sharding_per_value"), std::string::npos);

  // Half a megabyte per device: both weights (512 KiB each) must be split.
  options.memory_budget = 600 << 10;
  ASSERT_TRUE(program->compile(options).ok());
  report = program->auto_shard_report();
  EXPECT_NE(report.find("\"memory_budget_bytes\": 614400"), std::string::npos)
      << report;
  auto partitioned = program->partitioned();
  ASSERT_TRUE(partitioned.ok());
  EXPECT_EQ(partitioned->find("%arg1: tensor<256x512xf32>"), std::string::npos)
      << *partitioned;
  EXPECT_EQ(partitioned->find("%arg2: tensor<512x256xf32>"), std::string::npos)
      << *partitioned;
  auto budgeted = program->run({x, w1, w2});
  ASSERT_TRUE(budgeted.ok()) << budgeted.status();
  EXPECT_LT(maxDiff(*(*budgeted)[0].to_host(), want[0]), 1e-4);

  // Nothing fits 1 KiB; nothing marked and no global mesh has no mesh.
  options.memory_budget = 1024;
  EXPECT_ERROR(program->compile(options), "fits the memory budget");
  auto bare = spmd::Program::fromString(mlp);
  ASSERT_TRUE(bare.ok());
  options.memory_budget = 0;
  if (!spmd::get_global_mesh())
    EXPECT_ERROR(bare->compile(options), "needs a mesh");
  spmd::set_global_mesh(mesh2x2());
  ASSERT_TRUE(bare->compile(options).ok());
  auto whole = bare->run({x, w1, w2});
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_LT(maxDiff(*(*whole)[0].to_host(), want[0]), 1e-4);
}

// Integers of widths spmd::DType has no name for (i4) run with spmd-run;
// the API refuses them when compiling, never hands out a tensor whose
// dtype() it cannot say.
// The solver runs in a child process, which starts with a copy of the
// user's unwritten stdout: that copy must never reach the user's output.
TEST(Api, AutoShardLeavesTheUsersOutputAlone) {
  auto program = spmd::Program::fromString(kMatmul);
  ASSERT_TRUE(program.ok());
  absl::Status marked =
      program->mark_sharding(program->argument(0), mesh2x2(), {"x", None});
  ASSERT_TRUE(marked.ok()) << marked;
  spmd::Program::CompileOptions options;
  options.auto_shard = true;
  options.memory_budget = 1 << 20;
  std::fflush(stdout);
  char path[] = "/tmp/spmd-stdout-XXXXXX";
  int file = ::mkstemp(path);
  ASSERT_GE(file, 0);
  int saved = ::dup(STDOUT_FILENO);
  ::dup2(file, STDOUT_FILENO);
  std::printf("not yet written;"); // no newline: stays in stdout's buffer
  absl::Status compiled = program->compile(options);
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ::close(file);
  std::ifstream in(path);
  std::string written((std::istreambuf_iterator<char>(in)), {});
  ::unlink(path);
  EXPECT_TRUE(compiled.ok()) << compiled;
  EXPECT_EQ(written, "not yet written;");
}

// The report is the last auto-sharded compile's, also when it failed.
TEST(Api, AutoShardReportIsTheLastCompiles) {
  auto program = spmd::Program::fromString(kMatmul);
  ASSERT_TRUE(program.ok());
  ASSERT_TRUE(
      program->mark_sharding(program->argument(0), mesh2x2(), {"x", None})
          .ok());
  spmd::Program::CompileOptions options;
  options.auto_shard = true;
  options.memory_budget = 1 << 20;
  ASSERT_TRUE(program->compile(options).ok());
  EXPECT_NE(program->auto_shard_report().find("1048576"), std::string::npos)
      << program->auto_shard_report();
  options.memory_budget = 16;
  EXPECT_FALSE(program->compile(options).ok());
  EXPECT_EQ(program->auto_shard_report().find("1048576"), std::string::npos)
      << program->auto_shard_report();
}

TEST(Api, IntegersOfOtherWidthsAreRefused) {
  auto program = spmd::Program::fromString(R"(
    spmd.mesh @mesh = <["x"=2]>
    func.func @f() -> tensor<4xi4> {
      %a = arith.constant dense<[7, -8, 1, 2]> : tensor<4xi4>
      %b = arith.addi %a, %a : tensor<4xi4>
      return %b : tensor<4xi4>
    })");
  ASSERT_TRUE(program.ok()) << program.status().message();
  EXPECT_ERROR(program->run({}).status(), "no element type i4");
  // Signed or unsigned integers would run as signless ones: 200 read as -56.
  auto unsignedBytes = spmd::Program::fromString(R"(
    func.func @f(%x: tensor<2xui8>) -> tensor<2xui8> {
      return %x : tensor<2xui8>
    })");
  ASSERT_TRUE(unsignedBytes.ok()) << unsignedBytes.status().message();
  const uint8_t raw[] = {200, 255};
  auto bytes = spmd::HostTensor::fromBytes(spmd::DType::I8, {2}, raw, 2);
  ASSERT_TRUE(bytes.ok());
  absl::Status compiled = unsignedBytes->compile();
  EXPECT_EQ(compiled.code(), absl::StatusCode::kUnimplemented) << compiled;
  EXPECT_ERROR(compiled, "no element type ui8");
  EXPECT_ERROR(unsignedBytes->run({*bytes}).status(), "no element type ui8");
}

TEST(Api, MisuseReturnsStatuses) {
  auto program = spmd::Program::fromString(kMatmul);
  ASSERT_TRUE(program.ok());
  spmd::Mesh mesh = mesh2x2();
  // Spec rank, unknown axis, axis twice, on a program value.
  EXPECT_ERROR(program->mark_sharding(program->argument(0), mesh, {"x", None, None}),
               "rank");
  EXPECT_ERROR(program->mark_sharding(program->argument(0), mesh, {"q"}), "q");
  EXPECT_ERROR(program->mark_sharding(program->argument(0), mesh, {"x", "x"}),
               "twice");
  // Inputs of the wrong shape, type or number.
  EXPECT_ERROR(program->run({iota({6, 7}), iota({8, 5})}).status(),
               "input 0 is f32[6, 7]");
  auto ints = spmd::HostTensor(spmd::DType::I32, {8, 5});
  EXPECT_ERROR(program->run({iota({6, 8}), ints}).status(), "input 1 is i32");
  EXPECT_ERROR(program->run({iota({6, 8})}).status(), "takes 2 inputs");
  // Values of another program, empty values, unknown names.
  auto other = spmd::Program::fromString(kMatmul);
  ASSERT_TRUE(other.ok());
  EXPECT_ERROR(program->mark_sharding(other->argument(0), mesh, {"x"}),
               "another program");
  EXPECT_ERROR(program->mark_sharding(spmd::Value(), mesh, {"x"}), "empty");
  // A value whose program is gone (a new one may live at its address).
  spmd::Value stale;
  {
    auto gone = spmd::Program::fromString(kMatmul);
    stale = gone->argument(0);
  }
  auto fresh = spmd::Program::fromString(kMatmul);
  EXPECT_ERROR(fresh->mark_sharding(stale, mesh, {"x"}), "another program");
  EXPECT_ERROR(program->value("%nothing").status(), "%nothing");
  EXPECT_FALSE(program->argument(7).valid());
  // A tensor that was never placed.
  EXPECT_ERROR(spmd::ShardedTensor().to_host().status(), "nothing");
  // No global mesh and none given.
  // Bad programs.
  EXPECT_ERROR(spmd::Program::fromString("func.func @f(").status(), "");
  EXPECT_ERROR(spmd::Program::fromFile("/nonexistent.mlir").status(),
               "cannot read");
  // A device is refused before it is read (/dev/zero was read until memory
  // ran out).
  EXPECT_ERROR(spmd::Program::fromFile("/dev/zero").status(), "a device");
  EXPECT_ERROR(spmd::Program::fromString(kMatmul, "g").status(), "@g");
  // Host tensors of the wrong size.
  std::vector<float> three(3);
  EXPECT_ERROR(spmd::HostTensor::fromVector<float>({2, 2}, three).status(),
               "bytes");
  EXPECT_ERROR(iota({2}).values<int32_t>().status(), "f32");
  // Errors of compilation point into the user's source.
  auto noKernel = spmd::Program::fromString(R"mlir(
func.func @f(%x: tensor<4xi32>) -> tensor<4xi32> {
  %y = tensor.bitcast %x : tensor<4xi32> to tensor<4xui32>
  %z = tensor.bitcast %y : tensor<4xui32> to tensor<4xi32>
  return %z : tensor<4xi32>
})mlir");
  ASSERT_TRUE(noKernel.ok());
  EXPECT_ERROR(noKernel->compile(),
               "<string>:3:8: error: 'tensor.bitcast': no kernel for this op");
}

namespace {
/// Row-major element (i, j) of a 2-D host tensor.
double at2(const spmd::HostTensor &t, int64_t i, int64_t j) {
  return t.at(i * t.shape()[1] + j);
}
} // namespace

// Each builder op against the same computation written out in C++.
TEST(ApiBuilder, OpsComputeWhatTheySay) {
  spmd::Program p = spmd::Program::build("ops");
  spmd::Value a = p.parameter({2, 3}), b = p.parameter({3, 2});
  spmd::HostTensor ha = iota({2, 3}, 0.3f), hb = iota({3, 2}, 0.2f);
  std::vector<spmd::Value> outs = {
      p.matmul(a, b),                       // 0
      p.softmax(a, 1),                      // 1
      p.layer_norm(a, 1, 1e-5),             // 2
      p.gelu(a),                            // 3
      p.mean(a, {1}),                       // 4
      p.reduce_max(a, {0}),                 // 5
      p.transpose(a, {1, 0}),               // 6
      p.reshape(a, {3, 2}),                 // 7
      p.broadcast(p.reduce_sum(a, {1}), {2, 3}, {0}), // 8
      p.slice(a, {0, 1}, {2, 2}),           // 9
      p.concat({a, a}, 0),                  // 10
      p.sub(p.max(p.relu(a), p.exp(a)), p.div(p.tanh(a), p.exp(a))), // 11
      p.add(a, p.constant(ha)),             // 12
      p.mul(p.reshape(p.reshape(a, {6}), {1, 6}), p.reshape(a, {1, 6})), // 13
      p.batch_matmul(p.reshape(a, {1, 2, 3}), p.reshape(b, {1, 3, 2})), // 14
  };
  ASSERT_TRUE(p.status().ok()) << p.status();
  ASSERT_TRUE(p.output(outs).ok());
  auto run = p.run({ha, hb});
  ASSERT_TRUE(run.ok()) << run.status() << "\n" << p.to_string();
  std::vector<spmd::HostTensor> r;
  for (const auto &t : *run)
    r.push_back(*t.to_host());
  auto A = [&](int i, int j) { return at2(ha, i, j); };
  auto B = [&](int i, int j) { return at2(hb, i, j); };
  const double tol = 1e-5;
  for (int i = 0; i < 2; ++i) {
    double rowSum = 0, rowMax = -1e30, mean = 0, var = 0, expSum = 0;
    for (int k = 0; k < 3; ++k) {
      rowSum += A(i, k);
      rowMax = std::max(rowMax, A(i, k));
      expSum += std::exp(A(i, k));
    }
    mean = rowSum / 3;
    for (int k = 0; k < 3; ++k)
      var += (A(i, k) - mean) * (A(i, k) - mean) / 3;
    EXPECT_NEAR(r[4].at(i), mean, tol);
    for (int j = 0; j < 2; ++j) {
      double dot = 0;
      for (int k = 0; k < 3; ++k)
        dot += A(i, k) * B(k, j);
      EXPECT_NEAR(at2(r[0], i, j), dot, tol);
      EXPECT_NEAR(r[14].at(i * 2 + j), dot, tol);
      EXPECT_NEAR(at2(r[9], i, j), A(i, j + 1), tol);
    }
    for (int j = 0; j < 3; ++j) {
      double x = A(i, j);
      EXPECT_NEAR(at2(r[1], i, j), std::exp(x) / expSum, tol);
      EXPECT_NEAR(at2(r[2], i, j), (x - mean) / std::sqrt(var + 1e-5), 1e-4);
      double gelu = 0.5 * x *
                    (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
      EXPECT_NEAR(at2(r[3], i, j), gelu, tol);
      EXPECT_NEAR(at2(r[6], j, i), x, tol);
      EXPECT_NEAR(r[7].at(i * 3 + j), x, tol);
      EXPECT_NEAR(at2(r[8], i, j), rowSum, tol);
      EXPECT_NEAR(at2(r[10], i, j), x, tol);
      EXPECT_NEAR(at2(r[10], i + 2, j), x, tol);
      EXPECT_NEAR(at2(r[11], i, j),
                  std::max(std::max(x, 0.0), std::exp(x)) -
                      std::tanh(x) / std::exp(x),
                  tol);
      EXPECT_NEAR(at2(r[12], i, j), 2 * x, tol);
      EXPECT_NEAR(r[13].at(i * 3 + j), x * x, tol);
    }
  }
  for (int j = 0; j < 3; ++j)
    EXPECT_NEAR(r[5].at(j), std::max(A(0, j), A(1, j)), tol);
  EXPECT_EQ(r[10].shape(), (std::vector<int64_t>{4, 3}));
}

// A transformer-style block built in C++, sharded Megatron style on a 2x2
// mesh, matches the same block on one device.
TEST(ApiBuilder, ShardedBlockMatchesOneDevice) {
  auto block = [](spmd::Program &p) {
    spmd::Value x = p.parameter({6, 8}), w1 = p.parameter({8, 12}),
                w2 = p.parameter({12, 8});
    spmd::Value h = p.gelu(p.matmul(x, w1));
    spmd::Value y = p.add(x, p.matmul(h, w2));
    spmd::Value scores = p.softmax(p.matmul(y, p.transpose(y, {1, 0})), 1);
    EXPECT_TRUE(p.output({p.layer_norm(y, 1), scores, p.mean(y, {0, 1})}).ok());
    return std::vector<spmd::Value>{x, w1, w2, h};
  };
  std::vector<spmd::Input> inputs = {iota({6, 8}, 0.05f), iota({8, 12}, 0.04f),
                                     iota({12, 8}, 0.03f)};
  spmd::Program single = spmd::Program::build("block");
  block(single);
  auto want = single.run(inputs);
  ASSERT_TRUE(want.ok()) << want.status();

  spmd::Program sharded = spmd::Program::build("block");
  std::vector<spmd::Value> v = block(sharded);
  spmd::Mesh mesh = mesh2x2();
  ASSERT_TRUE(sharded.mark_sharding(v[0], mesh, {"x", None}).ok());
  ASSERT_TRUE(sharded.mark_sharding(v[1], mesh, {None, "y"}).ok());
  ASSERT_TRUE(sharded.mark_sharding(v[2], mesh, {"y", None}).ok());
  ASSERT_TRUE(sharded.mark_sharding(v[3], mesh, {"x", "y"}).ok());
  auto got = sharded.run(inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  for (size_t i = 0; i < got->size(); ++i)
    EXPECT_LT(maxDiff(*(*got)[i].to_host(), *(*want)[i].to_host()), 1e-5) << i;
  auto partitioned = sharded.partitioned();
  ASSERT_TRUE(partitioned.ok());
  EXPECT_NE(partitioned->find("tensor<3x6xf32>"), std::string::npos);
}

TEST(ApiBuilder, ShapeErrorsAreKept) {
  spmd::Program p = spmd::Program::build();
  spmd::Value a = p.parameter({2, 3});
  EXPECT_FALSE(p.matmul(a, a).valid());
  EXPECT_ERROR(p.status(), "matmul of tensor<2x3xf32> and tensor<2x3xf32>");
  EXPECT_ERROR(p.compile(), "matmul");
  spmd::Program q = spmd::Program::build();
  spmd::Value c = q.parameter({2, 3});
  EXPECT_FALSE(q.reshape(c, {4, 2}).valid());
  EXPECT_ERROR(q.status(), "reshape");
  spmd::Program r = spmd::Program::build();
  spmd::Value d = r.parameter({2, 3});
  EXPECT_FALSE(r.add(d, a).valid()); // a value of another program
  EXPECT_ERROR(r.status(), "another program");
  spmd::Program s = spmd::Program::build();
  spmd::Value e = s.parameter({2, 3});
  EXPECT_FALSE(s.transpose(e, {0, 0}).valid());
  EXPECT_FALSE(s.slice(e, {1, 0}, {2, 3}).valid());
  EXPECT_ERROR(s.status(), "transpose");
}

TEST(Api, HybridMeshFromFile) {
  std::string path = ::testing::TempDir() + "/one_host.yaml";
  {
    std::ofstream out(path);
    out << "axis_names: [data, model]\nici_mesh_shape: [2, 2]\n"
           "dcn_mesh_shape: [1, 1]\n";
  }
  auto mesh = spmd::HybridMesh::fromFile(path);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->size(), 4);
  EXPECT_EQ(mesh->ici_mesh_shape(), (std::vector<int64_t>{2, 2}));
  auto placed = spmd::mark_sharding(iota({4, 4}), *mesh, {"data", "model"});
  ASSERT_TRUE(placed.ok()) << placed.status();
  // Two processes in the file, one running: refused, saying so.
  {
    std::ofstream out(path);
    out << "axis_names: [data, model]\nici_mesh_shape: [1, 4]\n"
           "dcn_mesh_shape: [2, 1]\n";
  }
  EXPECT_ERROR(spmd::HybridMesh::fromFile(path).status(), "process");
  EXPECT_ERROR(spmd::HybridMesh::fromFile("/nonexistent.yaml").status(),
               "nonexistent");
}

// Tensors own their buffers: results outlive the program that made them.
TEST(Api, ResultsOutliveTheirProgram) {
  spmd::HostTensor a = iota({6, 8}), b = iota({8, 5}, 0.02f);
  std::vector<spmd::HostTensor> want = reference(kMatmul, {a, b});
  std::optional<spmd::ShardedTensor> kept;
  {
    auto program = spmd::Program::fromString(kMatmul);
    ASSERT_TRUE(program.ok());
    ASSERT_TRUE(program->mark_sharding(program->argument(0), mesh2x2(),
                                       {"x", "y"})
                    .ok());
    auto out = program->run({a, b});
    ASSERT_TRUE(out.ok());
    kept = (*out)[0];
  }
  auto host = kept->to_host();
  ASSERT_TRUE(host.ok());
  EXPECT_LT(maxDiff(*host, want[0]), 1e-6);
  // And feed another program.
  auto other = spmd::Program::fromString(R"mlir(
    func.func @g(%x: tensor<6x5xf32>) -> tensor<6x5xf32> {
      %y = math.tanh %x : tensor<6x5xf32>
      return %y : tensor<6x5xf32>
    })mlir");
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(other->mark_sharding(other->argument(0), mesh2x2(), {None, "x"})
                  .ok());
  auto chained = other->run({*kept});
  ASSERT_TRUE(chained.ok()) << chained.status();
  auto result = (*chained)[0].to_host();
  for (int64_t i = 0; i < result->numel(); ++i)
    EXPECT_NEAR(result->at(i), std::tanh(want[0].at(i)), 1e-6);
}

// Found by an adversarial run of user programs: each was a crash, a
// use-after-free or a silently wrong state.
TEST(ApiRobustness, DefaultAndInvalidTensors) {
  spmd::HostTensor zero;
  EXPECT_EQ(zero.numel(), 1);
  EXPECT_EQ(zero.at(0), 0);
  spmd::HostTensor negative(spmd::DType::F32, {-3, 4});
  EXPECT_ERROR(negative.status(), "invalid tensor shape");
  spmd::HostTensor huge(spmd::DType::F32, {int64_t(1) << 40, int64_t(1) << 40});
  EXPECT_ERROR(huge.status(), "invalid tensor shape");
  EXPECT_ERROR(spmd::mark_sharding(negative, mesh2x2(), {}).status(),
               "invalid tensor shape");
  auto program = spmd::Program::fromString(R"mlir(
    func.func @f(%x: tensor<f32>) -> tensor<f32> {
      %y = math.tanh %x : tensor<f32>
      return %y : tensor<f32>
    })mlir");
  ASSERT_TRUE(program.ok());
  EXPECT_ERROR(program->run({spmd::ShardedTensor()}).status(), "holds nothing");
  EXPECT_ERROR(program->run({negative}).status(), "input 0");
  auto ran = program->run({zero});
  ASSERT_TRUE(ran.ok()) << ran.status();
  EXPECT_EQ((*ran)[0].to_host()->at(0), 0);
  spmd::Program built = spmd::Program::build();
  EXPECT_FALSE(built.constant(negative).valid());
  EXPECT_ERROR(built.status(), "invalid tensor shape");
  // Bools are bytes 0 or 1, as checkpoints and .npy files hold them.
  const uint8_t flags[] = {0, 1, 2, 1};
  EXPECT_ERROR(
      spmd::HostTensor::fromBytes(spmd::DType::I1, {4}, flags, 4).status(),
      "element 2 is 2, not a bool (0 or 1)");
  EXPECT_ERROR(
      spmd::HostTensor::fromBytes(spmd::DType::F32, {2}, nullptr, 8).status(),
      "no data given for 8 bytes");
}

TEST(ApiRobustness, ResultsAreMarkedAsResults) {
  auto program = spmd::Program::fromString(R"mlir(
    func.func @f(%x: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
      %y = math.tanh %x : tensor<8x4xf32>
      return %x, %y : tensor<8x4xf32>, tensor<8x4xf32>
    })mlir");
  ASSERT_TRUE(program.ok());
  spmd::Mesh mesh = mesh2x2();
  ASSERT_TRUE(program->mark_sharding(program->argument(0), mesh, {"x", None})
                  .ok());
  // The first result returns the argument: marking it annotates the
  // result, not the argument.
  ASSERT_TRUE(program->mark_sharding(program->result(0), mesh, {None, "x"})
                  .ok());
  std::string text = program->to_string();
  EXPECT_NE(text.find("%arg0: tensor<8x4xf32> {spmd.sharding = "
                      "#spmd.sharding<@mesh, [{\"x\"}, {}]>}"),
            std::string::npos)
      << text;
  // Marking the intermediate, then the result it is returned as, twice,
  // then clearing: one constraint, one annotation, then none.
  auto y = program->value("%y");
  ASSERT_TRUE(y.ok());
  ASSERT_TRUE(program->mark_sharding(*y, mesh, {"y", None}).ok());
  spmd::Value out = program->result(1);
  ASSERT_TRUE(program->mark_sharding(out, mesh, {"x", None}).ok());
  ASSERT_TRUE(program->mark_sharding(out, mesh, {"y", None}).ok());
  ASSERT_TRUE(program->clear_sharding(*y).ok());
  ASSERT_TRUE(program->mark_sharding(out, mesh, {None, "y"}).ok());
  text = program->to_string();
  EXPECT_EQ(text.find("sharding_constraint"), std::string::npos) << text;
  ASSERT_TRUE(program->clear_sharding(out).ok());
  ASSERT_TRUE(program->clear_sharding(program->result(0)).ok());
  text = program->to_string();
  EXPECT_EQ(text.find("-> (tensor<8x4xf32> {spmd"), std::string::npos) << text;
  auto ran = program->run({iota({8, 4})});
  ASSERT_TRUE(ran.ok()) << ran.status();
}

TEST(ApiRobustness, NamesMeshesMovesAndBuilderEdges) {
  auto program = spmd::Program::fromString(R"mlir(
    func.func @f(%c: i1, %x: tensor<4xf32>) -> tensor<4xf32> {
      %r = scf.if %c -> tensor<4xf32> {
        %y = math.tanh %x : tensor<4xf32>
        scf.yield %y : tensor<4xf32>
      } else {
        %y = math.exp %x : tensor<4xf32>
        scf.yield %y : tensor<4xf32>
      }
      return %r : tensor<4xf32>
    })mlir");
  ASSERT_TRUE(program.ok());
  EXPECT_ERROR(program->value("%y").status(), "several values");
  // One mesh per program; a mesh nothing uses any more does not count.
  spmd::Mesh line({0, 1, 2, 3}, {4}, {"x"});
  ASSERT_TRUE(program->mark_sharding(program->argument(1), line, {"x"}).ok());
  EXPECT_ERROR(program->mark_sharding(program->result(0), mesh2x2(), {"x"}),
               "one mesh");
  ASSERT_TRUE(program->clear_sharding(program->argument(1)).ok());
  ASSERT_TRUE(program->mark_sharding(program->result(0), mesh2x2(), {"x"})
                  .ok());
  // A moved-from program answers, and does not crash.
  spmd::Program moved = std::move(*program);
  EXPECT_ERROR(program->status(), "moved from");
  EXPECT_ERROR(program->compile(), "moved from");
  EXPECT_FALSE(program->argument(0).valid());
  EXPECT_FALSE(program->parameter({2}).valid());
  // Builder edges that made invalid IR.
  spmd::Program b = spmd::Program::build("edges");
  spmd::Value v = b.parameter({4}), one = b.parameter({1});
  ASSERT_TRUE(b.output({b.layer_norm(v, 0), b.reshape(one, {}),
                        b.reshape(b.reshape(one, {}), {1, 1})})
                  .ok());
  spmd::HostTensor in = iota({4}), single = iota({1});
  auto ran = b.run({in, single});
  ASSERT_TRUE(ran.ok()) << ran.status();
  EXPECT_EQ((*ran)[1].shape(), std::vector<int64_t>{});
  EXPECT_FALSE(b.broadcast(v, {-5, 4}, {1}).valid());
  EXPECT_ERROR(b.status(), "broadcast");
  EXPECT_ERROR(spmd::Program::build("").status(), "name");
}

// The in-memory cache keeps the 64 programs used last: programs of many
// shapes do not pile up (each holds an executable, a device pool and a
// context).
TEST(ApiRobustness, MemoryCacheIsBounded) {
  auto text = [](int n) {
    std::string t = "tensor<" + std::to_string(n) + "xf32>";
    return "func.func @f(%x: " + t + ") -> " + t + " {\n  %y = math.tanh %x : " +
           t + "\n  return %y : " + t + "\n}\n";
  };
  auto compile = [&](int n) {
    auto p = spmd::Program::fromString(text(n));
    ASSERT_TRUE(p.ok());
    ASSERT_TRUE(p->compile().ok());
  };
  compile(1000);
  int64_t hits = spmd::counter_value("cache_hits");
  compile(1000);
  EXPECT_EQ(spmd::counter_value("cache_hits"), hits + 1);
  for (int n = 1; n <= 64; ++n)
    compile(2000 + n);
  // The 64 used last are kept, the first of them included.
  hits = spmd::counter_value("cache_hits");
  compile(2064);
  compile(2001);
  EXPECT_EQ(spmd::counter_value("cache_hits"), hits + 2);
  int64_t misses = spmd::counter_value("cache_misses");
  compile(1000); // dropped by then: compiled again
  EXPECT_EQ(spmd::counter_value("cache_misses"), misses + 1);
  // It took the place of the one used longest ago (2002, not 2001).
  hits = spmd::counter_value("cache_hits");
  compile(2001);
  EXPECT_EQ(spmd::counter_value("cache_hits"), hits + 1);
  misses = spmd::counter_value("cache_misses");
  compile(2002);
  EXPECT_EQ(spmd::counter_value("cache_misses"), misses + 1);
}

TEST(ApiLimits, ProgramMeshesLargerThanAProcessRunsAreRefused) {
  // The largest mesh there may be, written in the program: spmd-run refuses
  // to run it (one process runs at most 8192 devices), and so does the API,
  // when compiling, with the same limit.
  const char *text = R"mlir(
spmd.mesh @mesh = <["x"=16777216]>
func.func @f(%a: tensor<16777216xf32> {spmd.sharding = #spmd.sharding<@mesh, [{"x"}]>}) -> tensor<16777216xf32> {
  %e = math.exp %a : tensor<16777216xf32>
  return %e : tensor<16777216xf32>
})mlir";
  auto program = spmd::Program::fromString(text);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_ERROR(program->compile(),
               "the mesh has 16777216 devices; one process runs at most 8192 "
               "(SPMD_MAX_LOCAL_DEVICES)");
}

TEST(ApiLimits, InvalidLocalDeviceLimitIsAnError) {
  // As spmd-run refuses it, the API says what is wrong with the value
  // instead of using another limit.
  setenv("SPMD_MAX_LOCAL_DEVICES", "many", 1);
  absl::Status placed =
      spmd::mark_sharding(iota({4}), mesh2x2(), {"x"}).status();
  unsetenv("SPMD_MAX_LOCAL_DEVICES");
  EXPECT_ERROR(placed, "SPMD_MAX_LOCAL_DEVICES=many is not an integer in "
                       "[1, 16777216]");
}
