//===- corpus_model.cpp - A model from an MLIR file, its input sharded ----===//
//
// Usage: spmd-example-corpus_model MODEL.mlir [DEVICES]
// Loads a model written by others (torch-mlir output), splits the first
// dimension of its first input over DEVICES (default 4) with mark_sharding,
// runs it with inputs drawn at random, and compares every output with the
// model on one device.
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>

static int fail(const absl::Status &status) {
  std::fprintf(stderr, "error: %s\n", std::string(status.message()).c_str());
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL.mlir [DEVICES]\n", argv[0]);
    return 2;
  }
  int64_t devices = argc > 2 ? std::atoll(argv[2]) : 4;
  // As many virtual devices as asked for, whatever the cores.
  setenv("SPMD_NUM_DEVICES", std::to_string(devices).c_str(),
         /*overwrite=*/0);
  auto single = spmd::Program::fromFile(argv[1]);
  auto program = spmd::Program::fromFile(argv[1]);
  if (!single.ok())
    return fail(single.status());

  std::mt19937 rng(1);
  std::vector<spmd::Input> inputs;
  for (int64_t i = 0; i < program->num_arguments(); ++i) {
    spmd::Value arg = program->argument(i);
    spmd::HostTensor t(arg.dtype(), arg.shape());
    for (int64_t e = 0; e < t.numel(); ++e) {
      if (arg.dtype() == spmd::DType::F32)
        static_cast<float *>(t.data())[e] =
            std::uniform_real_distribution<float>(-1, 1)(rng);
      else if (arg.dtype() == spmd::DType::I64)
        static_cast<int64_t *>(t.data())[e] = rng() % 4;
    }
    inputs.push_back(t);
  }

  std::vector<int64_t> ids(devices);
  std::iota(ids.begin(), ids.end(), 0);
  spmd::Mesh mesh(ids, {devices}, {"batch"});
  if (absl::Status s = program->mark_sharding(program->argument(0), mesh,
                                              {"batch"});
      !s.ok())
    return fail(s);
  auto want = single->run(inputs);
  auto got = program->run(inputs);
  if (!want.ok() || !got.ok())
    return fail(want.ok() ? got.status() : want.status());
  double worst = 0, scale = 1e-6;
  for (size_t r = 0; r < got->size(); ++r) {
    auto a = (*got)[r].to_host(), b = (*want)[r].to_host();
    for (int64_t e = 0; e < a->numel(); ++e) {
      worst = std::max(worst, std::fabs(a->at(e) - b->at(e)));
      scale = std::max(scale, std::fabs(b->at(e)));
    }
  }
  std::printf("devices=%zu outputs=%zu max_abs_err=%.3g (largest output %.3g)\n",
              (*got)[0].local_shards().size(), got->size(), worst, scale);
  std::printf("%s", spmd::metrics_report().c_str());
  bool ok = worst <= 1e-4 * scale;
  std::printf("check: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
