//===- megatron.cpp - A single-device MLP sharded Megatron style ----------===//
//
// The program is written for one device. Five lines of C++ shard it over a
// 2x4 mesh: the batch over "data", the first weight by columns and the
// second by rows over "model", the hidden activation constrained as well.
// It runs on 8 local devices; the result is compared with the same program
// on one device, then the sharding of the output and the metrics are shown.
//
// Given a HybridMesh file, the mesh comes from it, and the example runs
// under mpirun, each process on its own devices:
//   mpirun -np 2 spmd-example-megatron examples/two_hosts.yaml
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

static const char *kProgram = R"mlir(
func.func @mlp(%x: tensor<16x64xf32>, %w1: tensor<64x256xf32>,
               %w2: tensor<256x64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16x256xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x256xf32>) -> tensor<16x256xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<16x64xf32>, tensor<64x256xf32>)
                     outs(%f1 : tensor<16x256xf32>) -> tensor<16x256xf32>
  %e2 = tensor.empty() : tensor<16x256xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                           affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<16x256xf32>) outs(%e2 : tensor<16x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<16x256xf32>
  %e3 = tensor.empty() : tensor<16x64xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %y = linalg.matmul ins(%relu, %w2 : tensor<16x256xf32>, tensor<256x64xf32>)
                     outs(%f3 : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}
)mlir";

/// Random values of `shape`.
static spmd::HostTensor random(std::vector<int64_t> shape, std::mt19937 &rng) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::normal_distribution<float> normal(0.f, 0.1f);
  std::vector<float> values(n);
  for (float &v : values)
    v = normal(rng);
  return *spmd::HostTensor::fromVector<float>(shape, values);
}

static int fail(const absl::Status &status) {
  std::fprintf(stderr, "error: %s\n", std::string(status.message()).c_str());
  return 1;
}

int main(int argc, char **argv) {
  // Eight virtual devices whatever the cores (as XLA's host device count
  // flag); SPMD_NUM_DEVICES set by the user wins.
  setenv("SPMD_NUM_DEVICES", "8", /*overwrite=*/0);
  std::mt19937 rng(7);
  spmd::HostTensor x = random({16, 64}, rng), w1 = random({64, 256}, rng),
                   w2 = random({256, 64}, rng);

  // The reference: the same program on one device.
  absl::StatusOr<spmd::Program> single = spmd::Program::fromString(kProgram);
  if (!single.ok())
    return fail(single.status());
  auto expected = single->run({x, w1, w2});
  if (!expected.ok())
    return fail(expected.status());

  // The SPMD program.
  spmd::Mesh mesh({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4}, {"data", "model"});
  if (argc > 1) {
    absl::StatusOr<spmd::HybridMesh> hybrid = spmd::HybridMesh::fromFile(argv[1]);
    if (!hybrid.ok())
      return fail(hybrid.status());
    mesh = *hybrid;
  }
  auto program = spmd::Program::fromString(kProgram);
  if (!program.ok())
    return fail(program.status());
  for (auto [value, spec] :
       {std::pair{program->argument(0), spmd::PartitionSpec{"data", spmd::None}},
        {program->argument(1), {spmd::None, "model"}},
        {program->argument(2), {"model", spmd::None}},
        {*program->value("%relu"), {"data", "model"}}})
    if (absl::Status s = program->mark_sharding(value, mesh, spec); !s.ok())
      return fail(s);
  auto outputs = program->run({x, w1, w2});
  if (!outputs.ok())
    return fail(outputs.status());

  auto got = (*outputs)[0].to_host();
  auto want = (*expected)[0].to_host();
  if (!got.ok() || !want.ok())
    return fail(got.ok() ? want.status() : got.status());
  double worst = 0;
  for (int64_t i = 0; i < got->numel(); ++i)
    worst = std::max(worst, std::fabs(got->at(i) - want->at(i)));
  // Each process holds the shards of its own devices.
  std::string devices;
  for (const spmd::ShardedTensor::Shard &shard : (*outputs)[0].local_shards())
    devices += " " + std::to_string(shard.device);
  std::printf("process %lld of %lld: local devices%s\n",
              (long long)spmd::process_index(), (long long)spmd::world_size(),
              devices.c_str());
  std::fflush(stdout);
  if (spmd::process_index() != 0)
    return worst < 1e-4 ? 0 : 1;
  std::printf("devices=%zu max_abs_err=%.3g\n", (*outputs)[0].local_shards().size(),
              worst);
  std::printf("output sharding %s\n", (*outputs)[0].sharding().c_str());
  if (auto grid = spmd::visualize_sharding((*outputs)[0]); grid.ok())
    std::printf("%s", grid->c_str());
  std::printf("%s", spmd::metrics_report().c_str());
  bool ok = worst < 1e-4;
  std::printf("check: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
