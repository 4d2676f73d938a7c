//===- cache_process.cpp - One process of the on-disk cache test ----------===//
//
// Usage: spmd-cache-process CACHE_DIR LAYERS [--readonly]
// Compiles a chain of LAYERS sharded matmul layers with the on-disk cache in
// CACHE_DIR, runs it on 8 devices, checks it against one device, and prints
// how the compile went: "compile: miss|disk|rejected+miss <seconds>", then
// "check: PASS|FAIL". Exit codes: 0 checked, 1 the cache or the compile
// failed (the message on stderr), 3 the run failed, 4 the check failed.
//
// Usage: spmd-cache-process --seal ENTRY
// Rewrites the header of ENTRY (a file KEY.mlir) to match the body it has:
// an entry changed by someone who recomputes the hash.
//
// Usage: spmd-cache-process --warnings CACHE_DIR
// Compiles a program the compiler warns about: prints "compile: miss|disk"
// and the program's warnings, one per line.
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include "llvm/Support/xxhash.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

static std::string chain(int layers) {
  std::string body;
  std::string value = "%x";
  for (int i = 0; i < layers; ++i) {
    std::string n = std::to_string(i);
    body += "  %e" + n + " = tensor.empty() : tensor<16x16xf32>\n"
            "  %f" + n + " = linalg.fill ins(%zero : f32) outs(%e" + n +
            " : tensor<16x16xf32>) -> tensor<16x16xf32>\n"
            "  %m" + n + " = linalg.matmul ins(" + value +
            ", %w : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f" + n +
            " : tensor<16x16xf32>) -> tensor<16x16xf32>\n"
            "  %t" + n + " = math.tanh %m" + n + " : tensor<16x16xf32>\n";
    value = "%t" + n;
  }
  return "func.func @chain(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> "
         "tensor<16x16xf32> {\n  %zero = arith.constant 0.0 : f32\n" +
         body + "  return " + value + " : tensor<16x16xf32>\n}\n";
}

/// The header the cache writes (api/Cache.cpp) for `body` in `path`.
static int seal(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream contents;
  contents << in.rdbuf();
  std::string all = contents.str();
  size_t newline = all.find('\n');
  std::string body = newline == std::string::npos ? "" : all.substr(newline + 1);
  std::string key = path.substr(path.rfind('/') + 1, 16);
  char header[128];
  std::snprintf(header, sizeof header, "// spmd compiled program v2 %s %016llx\n",
                key.c_str(), (unsigned long long)llvm::xxh3_64bits(body));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << header << body;
  return 0;
}

static int fail(int code, const absl::Status &status) {
  std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
  return code;
}

/// Compiles, with the cache in `dir`, a manual region whose result is
/// said to be replicated over "model" and is not: prints where the program
/// came from and its warnings, one per line.
static int warnings(const std::string &dir) {
  const char *text = R"mlir(spmd.mesh @mesh = <["model"=2]>
func.func @partial(%x: tensor<16xf32>) -> tensor<16xf32> {
  %y = spmd.manual_computation(%x) in_shardings = [<@mesh, [{"model"}]>]
      out_shardings = [<@mesh, [{}]>] manual_axes = ["model"]
      (%l: tensor<8xf32>) {
    %c = tensor.empty() : tensor<16xf32>
    %i = tensor.insert_slice %l into %c[0] [8] [1] : tensor<8xf32> into tensor<16xf32>
    spmd.yield %i : tensor<16xf32>
  } : (tensor<16xf32>) -> tensor<16xf32>
  return %y : tensor<16xf32>
}
)mlir";
  if (absl::Status s = spmd::initialize_cache(dir); !s.ok())
    return fail(1, s);
  auto program = spmd::Program::fromString(text);
  if (!program.ok())
    return fail(1, program.status());
  int64_t disk = spmd::counter_value("disk_cache_hits");
  if (absl::Status s = program->compile(); !s.ok())
    return fail(1, s);
  std::printf("compile: %s\n",
              spmd::counter_value("disk_cache_hits") > disk ? "disk" : "miss");
  for (const std::string &warning : program->warnings())
    std::printf("%s\n", warning.c_str());
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && std::string(argv[1]) == "--seal")
    return seal(argv[2]);
  if (argc == 3 && std::string(argv[1]) == "--warnings")
    return warnings(argv[2]);
  bool readonly = argc == 4 && std::string(argv[3]) == "--readonly";
  if (argc != 3 && !readonly) {
    std::fprintf(stderr, "usage: %s CACHE_DIR LAYERS [--readonly]\n", argv[0]);
    return 2;
  }
  std::string text = chain(std::atoi(argv[2]));
  std::vector<float> xs(256), ws(256);
  for (int i = 0; i < 256; ++i) {
    xs[i] = 0.01f * float(i % 17) - 0.08f;
    ws[i] = 0.12f * float(i % 11) - 0.6f;
  }
  auto x = *spmd::HostTensor::fromVector<float>({16, 16}, xs);
  auto w = *spmd::HostTensor::fromVector<float>({16, 16}, ws);

  // The reference, before the cache exists in this process.
  auto single = spmd::Program::fromString(text);
  if (!single.ok())
    return fail(1, single.status());
  auto want = (*single->run({x, w}))[0].to_host();

  if (absl::Status s = spmd::initialize_cache(argv[1], readonly); !s.ok())
    return fail(1, s);
  auto program = spmd::Program::fromString(text);
  spmd::Mesh mesh({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4}, {"data", "model"});
  if (!program->mark_sharding(program->argument(0), mesh, {"data", spmd::None})
           .ok() ||
      !program->mark_sharding(program->argument(1), mesh, {spmd::None, "model"})
           .ok())
    return 1;
  int64_t disk = spmd::counter_value("disk_cache_hits");
  int64_t rejected = spmd::counter_value("disk_cache_rejected");
  auto start = std::chrono::steady_clock::now();
  if (absl::Status s = program->compile(); !s.ok())
    return fail(1, s);
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  const char *how = spmd::counter_value("disk_cache_hits") > disk ? "disk"
                    : spmd::counter_value("disk_cache_rejected") > rejected
                        ? "rejected+miss"
                        : "miss";
  std::printf("compile: %s %.4f\n", how, seconds);
  // A changed entry whose hash was recomputed is trusted: its program may
  // take or give other shapes.
  auto outputs = program->run({x, w});
  if (!outputs.ok())
    return fail(3, outputs.status());
  if (outputs->size() != 1)
    return fail(3, absl::InternalError("not one result"));
  auto got = (*outputs)[0].to_host();
  if (!got.ok())
    return fail(3, got.status());
  double worst = got->shape() == want->shape() ? 0 : INFINITY;
  for (int64_t i = 0; i < got->numel() && worst < INFINITY; ++i)
    worst = std::max(worst, std::fabs(got->at(i) - want->at(i)));
  bool pass = worst < 1e-3; // NaN fails too
  std::printf("check: %s max_abs_err=%.3g\n", pass ? "PASS" : "FAIL", worst);
  return pass ? 0 : 4;
}
