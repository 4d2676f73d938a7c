//===- training.cpp - An MLP trained with its weights kept on the devices -===//
//
// Usage: spmd-example-training dp|fsdp
// A two-layer MLP regressor, trained by SGD on a squared loss. The step,
// forward, hand-written backward and update, is built once with the tensor
// builder:
//   h = tanh(x W1);  pred = h W2;  loss = mean((pred - y)^2)
//   dpred = 2 (pred - y) / n;  dW2 = h^T dpred;  dh = dpred W2^T
//   dW1 = x^T (dh * (1 - h^2));  W' = W - lr dW
// dp:   the batch is split over the 8 devices of a "data" axis and the
//       weights replicated: gradients are summed across devices.
// fsdp: the batch and the weights' rows are split over an "fsdp" axis, as
//       torch_xla's FSDPv2 does: weights are gathered where they are used,
//       gradients reduce-scattered, and the new weights stay split.
// The weights (ShardedTensors) are fed to the next step without leaving the
// devices. Each step's loss is compared with the same step on one device.
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include <cmath>
#include <cstdio>
#include <cstring>

namespace {
constexpr int64_t kBatch = 32, kIn = 16, kHidden = 24, kOut = 8;

struct Step {
  spmd::Program program = spmd::Program::build("step");
  spmd::Value x, y, w1, w2;
};

spmd::HostTensor filled(std::vector<int64_t> shape, float value) {
  spmd::HostTensor t(spmd::DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    static_cast<float *>(t.data())[i] = value;
  return t;
}

/// One SGD step: (x, y, w1, w2) -> (w1', w2', loss).
Step buildStep() {
  Step s;
  spmd::Program &p = s.program;
  s.x = p.parameter({kBatch, kIn});
  s.y = p.parameter({kBatch, kOut});
  s.w1 = p.parameter({kIn, kHidden});
  s.w2 = p.parameter({kHidden, kOut});
  const float rate = 0.3f;
  spmd::Value h = p.tanh(p.matmul(s.x, s.w1));
  spmd::Value diff = p.sub(p.matmul(h, s.w2), s.y);
  spmd::Value loss = p.mean(p.mul(diff, diff), {0, 1});
  spmd::Value dpred =
      p.mul(diff, p.constant(filled({kBatch, kOut}, 2.0f / (kBatch * kOut))));
  spmd::Value dw2 = p.matmul(p.transpose(h, {1, 0}), dpred);
  spmd::Value dh = p.matmul(dpred, p.transpose(s.w2, {1, 0}));
  spmd::Value dpre =
      p.mul(dh, p.sub(p.constant(filled({kBatch, kHidden}, 1.0f)), p.mul(h, h)));
  spmd::Value dw1 = p.matmul(p.transpose(s.x, {1, 0}), dpre);
  spmd::Value w1 =
      p.sub(s.w1, p.mul(dw1, p.constant(filled({kIn, kHidden}, rate))));
  spmd::Value w2 =
      p.sub(s.w2, p.mul(dw2, p.constant(filled({kHidden, kOut}, rate))));
  (void)p.output({w1, w2, loss});
  return s;
}

spmd::HostTensor data(std::vector<int64_t> shape, float phase, float scale) {
  spmd::HostTensor t(spmd::DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    static_cast<float *>(t.data())[i] = scale * std::sin(0.37f * float(i) + phase);
  return t;
}

int fail(const absl::Status &status) {
  std::fprintf(stderr, "error: %s\n", std::string(status.message()).c_str());
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  bool fsdp = argc > 1 && std::strcmp(argv[1], "fsdp") == 0;
  const char *axis = fsdp ? "fsdp" : "data";
  spmd::HostTensor x = data({kBatch, kIn}, 0.f, 1.f),
                   w1 = data({kIn, kHidden}, 2.f, 0.3f),
                   w2 = data({kHidden, kOut}, 3.f, 0.3f);
  // A target the model can learn: half of the first inputs.
  spmd::HostTensor y(spmd::DType::F32, {kBatch, kOut});
  for (int64_t b = 0; b < kBatch; ++b)
    for (int64_t o = 0; o < kOut; ++o)
      static_cast<float *>(y.data())[b * kOut + o] = 0.5f * x.at(b * kIn + o);

  Step single = buildStep();
  Step sharded = buildStep();
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
