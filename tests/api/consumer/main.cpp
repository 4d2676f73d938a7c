// Shards a row-wise softmax over 4 devices and checks it against 1 device.
#include <spmd/spmd.h>

#include <cmath>
#include <cstdio>

// Whatever standard the project asked for, Spmd::spmd raises it to C++17.
static_assert(__cplusplus >= 201703L, "spmd.h is compiled as C++17");

static const char *kSoftmax = R"mlir(
func.func @f(%x: tensor<6x10xf32>) -> tensor<6x10xf32> {
  %e = tensor.empty() : tensor<6x10xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<6x10xf32>)
                                    outs(%e : tensor<6x10xf32>) -> tensor<6x10xf32>
  return %s : tensor<6x10xf32>
})mlir";

int main() {
  std::vector<float> values(60);
  for (int i = 0; i < 60; ++i)
    values[i] = std::sin(float(i));
  auto x = *spmd::HostTensor::fromVector<float>({6, 10}, values);
  auto single = spmd::Program::fromString(kSoftmax);
  auto program = spmd::Program::fromString(kSoftmax);
  if (!single.ok() || !program.ok())
    return 1;
  spmd::Mesh mesh({0, 1, 2, 3}, {4}, {"x"});
  if (!program->mark_sharding(program->argument(0), mesh, {"x", spmd::None}).ok())
    return 1;
  auto want = single->run({x});
  auto got = program->run({x});
  if (!want.ok() || !got.ok()) {
    std::printf("error: %s\n", std::string((want.ok() ? got : want).status().message()).c_str());
    return 1;
  }
  auto a = (*got)[0].to_host(), b = (*want)[0].to_host();
  double worst = 0;
  for (int64_t i = 0; i < a->numel(); ++i)
    worst = std::fmax(worst, std::fabs(a->at(i) - b->at(i)));
  std::printf("devices=%zu max_abs_err=%g\ncheck: %s\n",
              (*got)[0].local_shards().size(), worst,
              worst < 1e-6 ? "PASS" : "FAIL");
  return worst < 1e-6 ? 0 : 1;
}
