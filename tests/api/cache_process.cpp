//===- cache_process.cpp - One process of the on-disk cache test ----------===//
//
// Usage: spmd-cache-process CACHE_DIR LAYERS
// Compiles a chain of LAYERS sharded matmul layers with the on-disk cache in
// CACHE_DIR, runs it on 8 devices, checks it against one device, and prints
// how the compile went: "compile: miss|disk|rejected+miss <seconds>".
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CACHE_DIR LAYERS\n", argv[0]);
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
  if (!single.ok()) {
    std::fprintf(stderr, "%s\n", std::string(single.status().message()).c_str());
    return 1;
  }
  auto want = (*single->run({x, w}))[0].to_host();

  if (absl::Status s = spmd::initialize_cache(argv[1]); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
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
  if (absl::Status s = program->compile(); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  const char *how = spmd::counter_value("disk_cache_hits") > disk ? "disk"
                    : spmd::counter_value("disk_cache_rejected") > rejected
                        ? "rejected+miss"
                        : "miss";
  std::printf("compile: %s %.4f\n", how, seconds);
  auto got = (*program->run({x, w}))[0].to_host();
  double worst = 0;
  for (int64_t i = 0; i < got->numel(); ++i)
    worst = std::max(worst, std::fabs(got->at(i) - want->at(i)));
  std::printf("check: %s max_abs_err=%.3g\n", worst < 1e-3 ? "PASS" : "FAIL",
              worst);
  return worst < 1e-3 ? 0 : 1;
}
