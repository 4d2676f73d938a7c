//===- EigenGemm.cpp - Eigen's GEMM for the bench's baseline --------------===//

#include "bench/EigenGemm.h"

#include <Eigen/Core>

namespace spmd::bench {

const char *eigenGemmPath() { return SPMD_BENCH_EIGEN_PATH; }

void eigenGemm(const float *a, const float *b, float *c, int64_t m, int64_t k,
               int64_t n) {
  using Matrix =
      Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const Matrix> A(a, m, k), B(b, k, n);
  Eigen::Map<Matrix> C(c, m, n);
  C.noalias() += A * B;
}

} // namespace spmd::bench
