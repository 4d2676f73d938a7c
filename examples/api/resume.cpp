//===- resume.cpp - Training that checkpoints, is killed, and resumes -----===//
//
// Usage: spmd-example-resume DIR STEPS dp|fsdp [KILL_AT_STEP]
// The two-layer MLP of training.cpp, larger, trained for STEPS steps on
// batches fed by a ParallelLoader (a background thread makes and places
// each batch while the devices compute). Every 2 steps the weights and the
// step count are saved in DIR. A run finding a checkpoint in DIR resumes
// from it, on its own mesh: dp replicates the weights over 8 devices of a
// "data" axis, fsdp splits their rows over 8 devices of an "fsdp" axis.
// With KILL_AT_STEP the process kills itself (SIGKILL) once that step is
// computed, before it is saved. The last line gives the final loss.
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
constexpr int64_t kBatch = 256, kIn = 256, kHidden = 512, kOut = 64;
constexpr int kSaveEvery = 2;

spmd::HostTensor filled(std::vector<int64_t> shape, float value) {
  spmd::HostTensor t(spmd::DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    static_cast<float *>(t.data())[i] = value;
  return t;
}

spmd::HostTensor wave(std::vector<int64_t> shape, float phase, float scale) {
  spmd::HostTensor t(spmd::DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    static_cast<float *>(t.data())[i] =
        scale * std::sin(0.37f * float(i) + phase);
  return t;
}

/// The batch of step `step`: inputs, and a target the model can learn.
spmd::ParallelLoader::Batch batchOf(int64_t step) {
  spmd::HostTensor x = wave({kBatch, kIn}, 0.1f * float(step), 1.f);
  spmd::HostTensor y(spmd::DType::F32, {kBatch, kOut});
  for (int64_t b = 0; b < kBatch; ++b)
    for (int64_t o = 0; o < kOut; ++o)
      static_cast<float *>(y.data())[b * kOut + o] = 0.5f * x.at(b * kIn + o);
  return {x, y};
}

/// One SGD step: (x, y, w1, w2) -> (w1', w2', loss), as in training.cpp.
struct Step {
  spmd::Program program = spmd::Program::build("step");
  spmd::Value x, y, w1, w2;
};

Step buildStep() {
  Step s;
  spmd::Program &p = s.program;
  s.x = p.parameter({kBatch, kIn});
  s.y = p.parameter({kBatch, kOut});
  s.w1 = p.parameter({kIn, kHidden});
  s.w2 = p.parameter({kHidden, kOut});
  spmd::Value h = p.tanh(p.matmul(s.x, s.w1));
  spmd::Value diff = p.sub(p.matmul(h, s.w2), s.y);
  spmd::Value loss = p.mean(p.mul(diff, diff), {0, 1});
  spmd::Value dpred =
      p.mul(diff, p.constant(filled({kBatch, kOut}, 2.0f / (kBatch * kOut))));
  spmd::Value dw2 = p.matmul(p.transpose(h, {1, 0}), dpred);
  spmd::Value dh = p.matmul(dpred, p.transpose(s.w2, {1, 0}));
  spmd::Value dpre = p.mul(
      dh, p.sub(p.constant(filled({kBatch, kHidden}, 1.0f)), p.mul(h, h)));
  spmd::Value dw1 = p.matmul(p.transpose(s.x, {1, 0}), dpre);
  const float rate = 0.01f;
  spmd::Value w1 =
      p.sub(s.w1, p.mul(dw1, p.constant(filled({kIn, kHidden}, rate))));
  spmd::Value w2 =
      p.sub(s.w2, p.mul(dw2, p.constant(filled({kHidden, kOut}, rate))));
  (void)p.output({w1, w2, loss});
  return s;
}

int fail(const absl::Status &status) {
  std::fprintf(stderr, "error: %s\n", std::string(status.message()).c_str());
  return 1;
}
} // namespace

int main(int argc, char **argv) {
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
  Step step = buildStep();
  spmd::Program &p = step.program;
  for (auto [value, spec] :
       {std::pair{step.x, batch}, {step.y, batch}, {step.w1, weights},
        {step.w2, weights}, {p.result(0), weights}, {p.result(1), weights}})
    if (absl::Status s = p.mark_sharding(value, mesh, spec); !s.ok())
      return fail(s);

  // The weights and the step count: from the checkpoint if there is one.
  spmd::ShardedTensor w1, w2;
  int64_t first = 0;
  auto saved = spmd::load_checkpoint(
      dir, {{"w1", {mesh, weights}}, {"w2", {mesh, weights}},
            {"step", {mesh, {}}}});
  if (saved.ok()) {
    w1 = saved->at("w1");
    w2 = saved->at("w2");
    first = int64_t(saved->at("step").to_host()->at(0));
    std::printf("resumed at step %lld from %s, weights %s\n",
                (long long)first, dir.c_str(), w1.sharding().c_str());
  } else if (saved.status().code() == absl::StatusCode::kNotFound) {
    w1 = *spmd::mark_sharding(wave({kIn, kHidden}, 2.f, 0.05f), mesh, weights);
    w2 = *spmd::mark_sharding(wave({kHidden, kOut}, 3.f, 0.05f), mesh, weights);
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
