//===- ddp.cpp - Data-parallel training, written per device ---------------===//
//
// The torch_xla `xmp.spawn` way: every device runs `train(index)` with its
// own copy of the weights, runs the forward and backward pass of the
// two-layer MLP of mlp_step.h as a program on its slice of the batch
// (Program::run on a device runs it there alone), averages the gradients
// (and the loss) over the devices with xm::all_reduce, and applies SGD.
// Beside it, the same training as one SPMD program with the batch split
// over the devices (mark_sharding): both give the same loss and weights at
// every step.
//
//===----------------------------------------------------------------------===//

#include "../api/mlp_step.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

using Matrix = std::vector<float>; // row-major

Matrix valuesOf(const spmd::HostTensor &t) { return *t.values<float>(); }

spmd::HostTensor tensorOf(const Matrix &m, std::vector<int64_t> shape) {
  return *spmd::HostTensor::fromVector<float>(shape, m);
}

/// Rows [first, first + rows) of a [.., cols] matrix.
spmd::HostTensor rowsOf(const spmd::HostTensor &t, int64_t first,
                        int64_t rows) {
  int64_t cols = t.shape()[1];
  Matrix m = valuesOf(t);
  return tensorOf(
      Matrix(m.begin() + first * cols, m.begin() + (first + rows) * cols),
      {rows, cols});
}

/// w - rate * dw.
spmd::HostTensor sgd(const spmd::HostTensor &w, const spmd::HostTensor &dw,
                     float rate) {
  Matrix values = valuesOf(w), d = valuesOf(dw);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] -= rate * d[i];
  return tensorOf(values, w.shape());
}

} // namespace

int main() {
  constexpr int64_t kSteps = 5;
  // Every device of every process (under mpirun, processes x devices).
  const int64_t devices = spmd::global_runtime_device_count();
  const int64_t first =
      spmd::process_index() * spmd::addressable_device_count();
  const example::MlpSizes n{32, 16, 32, 4, 0.1f};
  spmd::HostTensor x = example::wave({n.batch, n.in}, 0.0f, 1.0f);
  spmd::HostTensor y = example::targetOf(x, n.out);
  spmd::HostTensor w1 = example::wave({n.in, n.hidden}, 1.0f, 0.3f);
  spmd::HostTensor w2 = example::wave({n.hidden, n.out}, 2.0f, 0.3f);
  if (n.batch % devices != 0) {
    std::fprintf(stderr, "error: %lld devices do not divide the batch\n",
                 (long long)devices);
    return 1;
  }

  // Replicated: each device trains its copy on its rows of the batch.
  int64_t rows = n.batch / devices;
  spmd::Program gradients = example::buildMlpGradients(n, rows);
  std::vector<float> losses(kSteps);
  std::vector<Matrix> finalW1(devices), finalW2(devices);
  absl::Status trained = spmd::spawn([&](int64_t index) {
    spmd::HostTensor xs = rowsOf(x, index * rows, rows);
    spmd::HostTensor ys = rowsOf(y, index * rows, rows);
    spmd::HostTensor a = w1, b = w2;
    for (int64_t step = 0; step < kSteps; ++step) {
      auto out = gradients.run({xs, ys, a, b});
      if (!out.ok()) {
        std::fprintf(stderr, "error: device %lld: %s\n", (long long)index,
                     std::string(out.status().message()).c_str());
        return;
      }
      // The mean over the devices of the local means: the batch's mean.
      std::vector<spmd::HostTensor> averaged;
      for (const spmd::ShardedTensor &t : *out)
        averaged.push_back(*t.to_host());
      if (!spmd::xm::all_reduce(spmd::dist::ReduceOp::SUM, averaged,
                                1.0 / devices)
               .ok())
        return;
      a = sgd(a, averaged[0], n.rate);
      b = sgd(b, averaged[1], n.rate);
      if (index == first) // the same on every device
        losses[step] = averaged[2].at(0);
    }
    finalW1[index] = valuesOf(a);
    finalW2[index] = valuesOf(b);
  });
  if (!trained.ok())
    return example::fail(trained);

  // SPMD: one program, the batch split over the devices.
  example::MlpStep step = example::buildMlpStep(n);
  std::vector<int64_t> ids(devices);
  for (int64_t d = 0; d < devices; ++d)
    ids[d] = d;
  spmd::Mesh mesh(ids, {devices}, {"data"});
  for (spmd::Value v : {step.x, step.y})
    if (absl::Status s =
            step.program.mark_sharding(v, mesh, {"data", spmd::None});
        !s.ok())
      return example::fail(s);
  spmd::HostTensor a = w1, b = w2;
  double worst = 0;
  for (int64_t s = 0; s < kSteps; ++s) {
    auto out = step.program.run({x, y, a, b});
    if (!out.ok())
      return example::fail(out.status());
    a = *(*out)[0].to_host();
    b = *(*out)[1].to_host();
    float loss = (*out)[2].to_host()->at(0);
    std::printf("step %lld: loss %.6f (replicated) %.6f (spmd)\n", (long long)s,
                losses[s], loss);
    worst = std::max(worst, double(std::abs(loss - losses[s])));
  }
  // This process's devices' copies.
  for (int64_t d = first; d < first + spmd::addressable_device_count(); ++d) {
    Matrix ea = valuesOf(a), eb = valuesOf(b);
    for (size_t i = 0; i < ea.size(); ++i)
      worst = std::max(worst, double(std::abs(ea[i] - finalW1[d][i])));
    for (size_t i = 0; i < eb.size(); ++i)
      worst = std::max(worst, double(std::abs(eb[i] - finalW2[d][i])));
  }
  std::printf("devices=%lld largest difference %.3g: check: %s\n",
              (long long)devices, worst, worst < 1e-5 ? "PASS" : "FAIL");
  return worst < 1e-5 ? 0 : 1;
}
