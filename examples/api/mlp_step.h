//===- mlp_step.h - The MLP training step of the API examples ---*- C++ -*-===//
//
// A two-layer MLP regressor trained by SGD on a squared loss, its step
// (forward, hand-written backward and update) built once with the tensor
// builder:
//   h = tanh(x W1);  pred = h W2;  loss = mean((pred - y)^2)
//   dpred = 2 (pred - y) / n;  dW2 = h^T dpred;  dh = dpred W2^T
//   dW1 = x^T (dh * (1 - h^2));  W' = W - rate dW
// training.cpp and resume.cpp run it; ddp.cpp runs its gradients on each
// device.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_EXAMPLES_API_MLP_STEP_H
#define SPMD_EXAMPLES_API_MLP_STEP_H

#include <spmd/spmd.h>

#include <cmath>
#include <cstdio>

namespace example {

struct MlpSizes {
  int64_t batch, in, hidden, out;
  float rate;
};

/// One SGD step: (x, y, w1, w2) -> (w1', w2', loss).
struct MlpStep {
  spmd::Program program = spmd::Program::build("step");
  spmd::Value x, y, w1, w2;
};

inline spmd::HostTensor filled(std::vector<int64_t> shape, float value) {
  spmd::HostTensor t(spmd::DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    static_cast<float *>(t.data())[i] = value;
  return t;
}

/// scale * sin(0.37 i + phase) at flat index i.
inline spmd::HostTensor wave(std::vector<int64_t> shape, float phase,
                             float scale) {
  spmd::HostTensor t(spmd::DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    static_cast<float *>(t.data())[i] =
        scale * std::sin(0.37f * float(i) + phase);
  return t;
}

/// A target the model can learn: half of the first `out` inputs of `x`.
inline spmd::HostTensor targetOf(const spmd::HostTensor &x, int64_t out) {
  int64_t batch = x.shape()[0], in = x.shape()[1];
  spmd::HostTensor y(spmd::DType::F32, {batch, out});
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t o = 0; o < out; ++o)
      static_cast<float *>(y.data())[b * out + o] = 0.5f * x.at(b * in + o);
  return y;
}

/// The loss of the MLP on `rows` rows and its gradients, added to `p`.
struct MlpGradients {
  spmd::Value dw1, dw2, loss;
};
inline MlpGradients mlpGradients(spmd::Program &p, spmd::Value x, spmd::Value y,
                                 spmd::Value w1, spmd::Value w2,
                                 const MlpSizes &n, int64_t rows) {
  spmd::Value h = p.tanh(p.matmul(x, w1));
  spmd::Value diff = p.sub(p.matmul(h, w2), y);
  spmd::Value loss = p.mean(p.mul(diff, diff), {0, 1});
  spmd::Value dpred =
      p.mul(diff, p.constant(filled({rows, n.out}, 2.0f / (rows * n.out))));
  spmd::Value dw2 = p.matmul(p.transpose(h, {1, 0}), dpred);
  spmd::Value dh = p.matmul(dpred, p.transpose(w2, {1, 0}));
  spmd::Value dpre =
      p.mul(dh, p.sub(p.constant(filled({rows, n.hidden}, 1.0f)), p.mul(h, h)));
  spmd::Value dw1 = p.matmul(p.transpose(x, {1, 0}), dpre);
  return {dw1, dw2, loss};
}

inline MlpStep buildMlpStep(const MlpSizes &n) {
  MlpStep s;
  spmd::Program &p = s.program;
  s.x = p.parameter({n.batch, n.in});
  s.y = p.parameter({n.batch, n.out});
  s.w1 = p.parameter({n.in, n.hidden});
  s.w2 = p.parameter({n.hidden, n.out});
  MlpGradients g = mlpGradients(p, s.x, s.y, s.w1, s.w2, n, n.batch);
  spmd::Value w1 =
      p.sub(s.w1, p.mul(g.dw1, p.constant(filled({n.in, n.hidden}, n.rate))));
  spmd::Value w2 =
      p.sub(s.w2, p.mul(g.dw2, p.constant(filled({n.hidden, n.out}, n.rate))));
  (void)p.output({w1, w2, g.loss});
  return s;
}

/// The forward and backward pass on `rows` rows of the batch:
/// (x, y, w1, w2) -> (dW1, dW2, loss), without the update.
inline spmd::Program buildMlpGradients(const MlpSizes &n, int64_t rows) {
  spmd::Program p = spmd::Program::build("gradients");
  spmd::Value x = p.parameter({rows, n.in}), y = p.parameter({rows, n.out});
  spmd::Value w1 = p.parameter({n.in, n.hidden});
  spmd::Value w2 = p.parameter({n.hidden, n.out});
  MlpGradients g = mlpGradients(p, x, y, w1, w2, n, rows);
  (void)p.output({g.dw1, g.dw2, g.loss});
  return p;
}

inline int fail(const absl::Status &status) {
  std::fprintf(stderr, "error: %s\n", std::string(status.message()).c_str());
  return 1;
}

} // namespace example

#endif // SPMD_EXAMPLES_API_MLP_STEP_H
