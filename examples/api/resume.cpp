//===- resume.cpp - Training that checkpoints, is killed, and resumes -----===//
//
// Usage: spmd-example-resume DIR STEPS dp|fsdp [KILL_AT_STEP]
// The two-layer MLP of mlp_step.h, larger than training.cpp's, trained for
// STEPS steps on batches fed by a ParallelLoader (a background thread makes and
// places each batch while the devices compute). Every 2 steps the weights and
// the step count are saved in DIR. A run finding a checkpoint in DIR resumes
// from it, on its own mesh: dp replicates the weights over 8 devices of a
// "data" axis, fsdp splits their rows over 8 devices of an "fsdp" axis.
// With KILL_AT_STEP the process kills itself (SIGKILL) once that step is
// computed, before it is saved. The last line gives the final loss.
//
//===----------------------------------------------------------------------===//

#include "mlp_step.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>

using namespace example;

namespace {
constexpr MlpSizes kSizes = {/*batch=*/256, /*in=*/256, /*hidden=*/512,
                             /*out=*/64, /*rate=*/0.01f};
constexpr int kSaveEvery = 2;

/// The batch of step `step`.
spmd::ParallelLoader::Batch batchOf(int64_t step) {
  spmd::HostTensor x = wave({kSizes.batch, kSizes.in}, 0.1f * float(step), 1.f);
  return {x, targetOf(x, kSizes.out)};
}
} // namespace

int main(int argc, char **argv) {
  // Eight virtual devices whatever the cores (as XLA's host device count
  // flag); SPMD_NUM_DEVICES set by the user wins.
  setenv("SPMD_NUM_DEVICES", "8", /*overwrite=*/0);
  if (argc < 4)
    return fail(absl::InvalidArgumentError(
        "usage: spmd-example-resume DIR STEPS dp|fsdp [KILL_AT_STEP]"));
  std::string dir = argv[1];
  int64_t steps = std::atoll(argv[2]);
  bool fsdp = std::strcmp(argv[3], "fsdp") == 0;
  int64_t killAt = argc > 4 ? std::atoll(argv[4]) : -1;

  const char *axis = fsdp ? "fsdp" : "data";
  spmd::Mesh mesh({0, 1, 2, 3, 4, 5, 6, 7}, {8}, {axis});
  spmd::PartitionSpec batch = {axis, spmd::None};
  spmd::PartitionSpec weights =
      fsdp ? spmd::PartitionSpec{axis, spmd::None} : spmd::PartitionSpec{};
  MlpStep step = buildMlpStep(kSizes);
  spmd::Program &p = step.program;
  for (auto [value, spec] : {std::pair{step.x, batch},
                             {step.y, batch},
                             {step.w1, weights},
                             {step.w2, weights},
                             {p.result(0), weights},
                             {p.result(1), weights}})
    if (absl::Status s = p.mark_sharding(value, mesh, spec); !s.ok())
      return fail(s);

  // The weights and the step count: from the checkpoint if there is one.
  spmd::ShardedTensor w1, w2;
  int64_t first = 0;
  auto saved = spmd::load_checkpoint(
      dir,
      {{"w1", {mesh, weights}}, {"w2", {mesh, weights}}, {"step", {mesh, {}}}});
  if (saved.ok()) {
    w1 = saved->at("w1");
    w2 = saved->at("w2");
    first = int64_t(saved->at("step").to_host()->at(0));
    std::printf("resumed at step %lld from %s, weights %s\n", (long long)first,
                dir.c_str(), w1.sharding().c_str());
  } else if (saved.status().code() == absl::StatusCode::kNotFound) {
    w1 = *spmd::mark_sharding(wave({kSizes.in, kSizes.hidden}, 2.f, 0.05f),
                              mesh, weights);
    w2 = *spmd::mark_sharding(wave({kSizes.hidden, kSizes.out}, 3.f, 0.05f),
                              mesh, weights);
  } else {
    return fail(saved.status());
  }

  double loading = 0;
  auto loader = spmd::ParallelLoader::create(
      [&, next = first]() mutable
      -> absl::StatusOr<std::optional<spmd::ParallelLoader::Batch>> {
        if (next == steps)
          return std::nullopt;
        auto start = std::chrono::steady_clock::now();
        spmd::ParallelLoader::Batch b = batchOf(next++);
        loading += std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
        return b;
      },
      {{mesh, batch}, {mesh, batch}});
  if (!loader.ok())
    return fail(loader.status());

  double loss = 0;
  for (int64_t s = first;; ++s) {
    auto inputs = loader->next();
    if (!inputs.ok())
      return fail(inputs.status());
    if (!inputs->has_value())
      break;
    auto out = p.run({(**inputs)[0], (**inputs)[1], w1, w2});
    if (!out.ok())
      return fail(out.status());
    w1 = (*out)[0];
    w2 = (*out)[1];
    loss = (*out)[2].to_host()->at(0);
    std::printf("step %lld loss %.9g\n", (long long)s, loss);
    std::fflush(stdout);
    if (s == killAt)
      std::raise(SIGKILL);
    if ((s + 1) % kSaveEvery == 0) {
      spmd::HostTensor done(spmd::DType::I64, {});
      *static_cast<int64_t *>(done.data()) = s + 1;
      if (absl::Status status = spmd::save_checkpoint(
              dir, {{"w1", w1},
                    {"w2", w2},
                    {"step", *spmd::mark_sharding(done, mesh, {})}});
          !status.ok())
        return fail(status);
    }
  }
  std::printf("waited %.1f ms for %lld batches; making them took %.1f ms\n",
              loader->wait_seconds() * 1e3, (long long)loader->batches(),
              loading * 1e3);
  std::printf("final loss %.9g\n", loss);
  return 0;
}
