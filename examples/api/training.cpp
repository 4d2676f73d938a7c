//===- training.cpp - Training steps with parameters kept on the devices --===//
//
// Usage: spmd-example-training dp|fsdp
// A linear model trained by gradient descent on a squared loss, the step
// written once with the tensor builder:
//   pred = x w;  grad = x^T (pred - y) * (2 / n);  w' = w - lr * grad.
// dp:   the batch is split over all 8 devices, w replicated: the gradient is
//       summed across devices (an all-reduce).
// fsdp: the batch and w's rows are split over "data": w is gathered where it
//       is used and the updated w stays split.
// The new w (a ShardedTensor) is fed to the next step without leaving the
// devices; after 5 steps it is compared with the same steps on one device.
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include <cmath>
#include <cstdio>
#include <cstring>

namespace {
constexpr int64_t kBatch = 32, kIn = 16, kOut = 8;

struct Step {
  spmd::Program program = spmd::Program::build("step");
  spmd::Value x, y, w;
};

/// One training step; returns the new w and the loss.
Step buildStep() {
  Step s;
  spmd::Program &p = s.program;
  s.x = p.parameter({kBatch, kIn});
  s.y = p.parameter({kBatch, kOut});
  s.w = p.parameter({kIn, kOut});
  spmd::Value diff = p.sub(p.matmul(s.x, s.w), s.y);
  spmd::Value grad = p.matmul(p.transpose(s.x, {1, 0}), diff);
  spmd::HostTensor rate(spmd::DType::F32, {kIn, kOut});
  for (int64_t i = 0; i < rate.numel(); ++i)
    static_cast<float *>(rate.data())[i] = 0.05f * 2.0f / kBatch;
  spmd::Value next = p.sub(s.w, p.mul(grad, p.constant(rate)));
  spmd::Value loss = p.mean(p.mul(diff, diff), {0, 1});
  (void)p.output({next, loss});
  return s;
}

spmd::HostTensor data(std::vector<int64_t> shape, float phase) {
  spmd::HostTensor t(spmd::DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    static_cast<float *>(t.data())[i] = std::sin(0.37f * float(i) + phase);
  return t;
}

int fail(const absl::Status &status) {
  std::fprintf(stderr, "error: %s\n", std::string(status.message()).c_str());
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  bool fsdp = argc > 1 && std::strcmp(argv[1], "fsdp") == 0;
  spmd::HostTensor x = data({kBatch, kIn}, 0.f), y = data({kBatch, kOut}, 1.f),
                   w0 = data({kIn, kOut}, 2.f);

  // One device, 5 steps.
  Step single = buildStep();
  spmd::HostTensor w = w0;
  for (int step = 0; step < 5; ++step) {
    auto out = single.program.run({x, y, w});
    if (!out.ok())
      return fail(out.status());
    w = *(*out)[0].to_host();
  }

  // 8 devices, 5 steps, w kept on the devices between steps.
  spmd::Mesh mesh({0, 1, 2, 3, 4, 5, 6, 7}, {8}, {"data"});
  Step sharded = buildStep();
  spmd::Program &p = sharded.program;
  spmd::PartitionSpec wSpec = fsdp ? spmd::PartitionSpec{"data", spmd::None}
                                   : spmd::PartitionSpec{};
  for (auto [value, spec] :
       {std::pair{sharded.x, spmd::PartitionSpec{"data", spmd::None}},
        {sharded.y, {"data", spmd::None}},
        {sharded.w, wSpec},
        {p.result(0), wSpec}})
    if (absl::Status s = p.mark_sharding(value, mesh, spec); !s.ok())
      return fail(s);
  auto xs = spmd::mark_sharding(x, mesh, {"data", spmd::None});
  auto ys = spmd::mark_sharding(y, mesh, {"data", spmd::None});
  auto ws = spmd::mark_sharding(w0, mesh, wSpec);
  if (!xs.ok() || !ys.ok() || !ws.ok())
    return fail(!xs.ok() ? xs.status() : !ys.ok() ? ys.status() : ws.status());
  spmd::ShardedTensor current = *ws;
  double loss = 0;
  for (int step = 0; step < 5; ++step) {
    auto out = p.run({*xs, *ys, current});
    if (!out.ok())
      return fail(out.status());
    current = (*out)[0];
    loss = (*out)[1].to_host()->at(0);
    std::printf("step %d loss %.6f\n", step, loss);
  }
  auto trained = current.to_host();
  double worst = 0;
  for (int64_t i = 0; i < trained->numel(); ++i)
    worst = std::max(worst, std::fabs(trained->at(i) - w.at(i)));
  std::printf("mode=%s w sharding %s\n", fsdp ? "fsdp" : "dp",
              current.sharding().c_str());
  std::printf("%s", spmd::metrics_report().c_str());
  std::printf("device_reshards=%lld\n",
              (long long)spmd::counter_value("device_reshards"));
  bool ok = worst < 1e-5;
  std::printf("max_abs_err=%.3g\ncheck: %s\n", worst, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
