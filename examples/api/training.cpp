//===- training.cpp - An MLP trained with its weights kept on the devices -===//
//
// Usage: spmd-example-training dp|fsdp
// The two-layer MLP regressor of mlp_step.h, trained by SGD.
// dp:   the batch is split over the 8 devices of a "data" axis and the
//       weights replicated: gradients are summed across devices.
// fsdp: the batch and the weights' rows are split over an "fsdp" axis, as
//       torch_xla's FSDPv2 does: weights are gathered where they are used,
//       gradients reduce-scattered, and the new weights stay split.
// The weights (ShardedTensors) are fed to the next step without leaving the
// devices. Each step's loss is compared with the same step on one device.
//
//===----------------------------------------------------------------------===//

#include "mlp_step.h"

#include <cstdlib>
#include <cstring>

using namespace example;

namespace {
constexpr MlpSizes kSizes = {/*batch=*/32, /*in=*/16, /*hidden=*/24,
                             /*out=*/8, /*rate=*/0.3f};
constexpr int64_t kBatch = kSizes.batch, kIn = kSizes.in,
                  kHidden = kSizes.hidden, kOut = kSizes.out;
} // namespace

int main(int argc, char **argv) {
  // Eight virtual devices whatever the cores (as XLA's host device count
  // flag); SPMD_NUM_DEVICES set by the user wins.
  setenv("SPMD_NUM_DEVICES", "8", /*overwrite=*/0);
  bool fsdp = argc > 1 && std::strcmp(argv[1], "fsdp") == 0;
  const char *axis = fsdp ? "fsdp" : "data";
  spmd::HostTensor x = wave({kBatch, kIn}, 0.f, 1.f),
                   w1 = wave({kIn, kHidden}, 2.f, 0.3f),
                   w2 = wave({kHidden, kOut}, 3.f, 0.3f);
  spmd::HostTensor y = targetOf(x, kOut);

  MlpStep single = buildMlpStep(kSizes);
  MlpStep sharded = buildMlpStep(kSizes);
  spmd::Program &p = sharded.program;
  spmd::Mesh mesh({0, 1, 2, 3, 4, 5, 6, 7}, {8}, {axis});
  spmd::PartitionSpec batch = {axis, spmd::None};
  spmd::PartitionSpec weights =
      fsdp ? spmd::PartitionSpec{axis, spmd::None} : spmd::PartitionSpec{};
  for (auto [value, spec] :
       {std::pair{sharded.x, batch}, {sharded.y, batch}, {sharded.w1, weights},
        {sharded.w2, weights}, {p.result(0), weights}, {p.result(1), weights}})
    if (absl::Status s = p.mark_sharding(value, mesh, spec); !s.ok())
      return fail(s);

  auto xs = spmd::mark_sharding(x, mesh, batch);
  auto ys = spmd::mark_sharding(y, mesh, batch);
  auto w1s = spmd::mark_sharding(w1, mesh, weights);
  auto w2s = spmd::mark_sharding(w2, mesh, weights);
  if (!xs.ok() || !ys.ok() || !w1s.ok() || !w2s.ok())
    return fail(absl::InternalError("placing the inputs failed"));
  spmd::ShardedTensor dw1 = *w1s, dw2 = *w2s;
  spmd::HostTensor hw1 = w1, hw2 = w2;
  double first = 0, last = 0, worst = 0;
  for (int step = 0; step < 5; ++step) {
    auto one = single.program.run({x, y, hw1, hw2});
    auto many = p.run({*xs, *ys, dw1, dw2});
    if (!one.ok() || !many.ok())
      return fail(one.ok() ? many.status() : one.status());
    hw1 = *(*one)[0].to_host();
    hw2 = *(*one)[1].to_host();
    dw1 = (*many)[0];
    dw2 = (*many)[1];
    double want = (*one)[2].to_host()->at(0), got = (*many)[2].to_host()->at(0);
    worst = std::max(worst, std::fabs(want - got));
    std::printf("step %d loss %.6f (one device %.6f)\n", step, got, want);
    (step == 0 ? first : last) = got;
  }
  for (auto [mine, theirs] : {std::pair{dw1, hw1}, {dw2, hw2}}) {
    spmd::HostTensor h = *mine.to_host();
    for (int64_t i = 0; i < h.numel(); ++i)
      worst = std::max(worst, std::fabs(h.at(i) - theirs.at(i)));
  }
  std::printf("mode=%s weights sharding %s\n", fsdp ? "fsdp" : "dp",
              dw1.sharding().c_str());
  std::printf("%s", spmd::metrics_report().c_str());
  std::printf("device_reshards=%lld\n",
              (long long)spmd::counter_value("device_reshards"));
  bool ok = worst < 1e-5 && last < first;
  std::printf("loss %.6f -> %.6f, max_abs_err=%.3g\ncheck: %s\n", first, last,
              worst, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
