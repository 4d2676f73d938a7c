//===- GemmKernels.cpp - Eigen's GEMM for one instruction set -------------===//
//
// f32 runs the blocked GEMM of PackedGemm.h, f64 Eigen's; softmax rows
// take Eigen's exp at this path's vector width.
//
// Compiled once per CPU path (runtime/kernels/gemm/CMakeLists.txt), each time into
// its own shared library with hidden symbols: Eigen chooses its packet
// width from the compiler's flags, and the copies of its templates must not
// be merged across paths. SPMD_GEMM_ENTRY names the table's entry point.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/gemm/GemmKernels.h"
#include "runtime/kernels/gemm/PackedGemm.h"

#include <Eigen/Core>

#include <algorithm>

using namespace spmd::runtime;

namespace {
template <typename T, int Order>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Order>;
template <typename M>
using View = Eigen::Map<M, Eigen::Unaligned, Eigen::OuterStride<>>;

template <typename T, int Order>
View<const Matrix<T, Order>> view(GemmOperand<const T> x, int64_t rows,
                                  int64_t cols) {
  return {x.data, rows, cols, Eigen::OuterStride<>(x.ld)};
}

template <typename T>
void gemm(GemmOperand<const T> a, GemmOperand<const T> b, GemmOperand<T> c,
          int64_t m, int64_t k, int64_t n, bool accumulate) {
  View<Matrix<T, Eigen::RowMajor>> C(c.data, m, n, Eigen::OuterStride<>(c.ld));
  auto product = [&](const auto &A, const auto &B) {
    if (accumulate)
      C.noalias() += A * B;
    else
      C.noalias() = A * B;
  };
  // A row-major view of a transposed operand is a column-major one.
  auto withB = [&](const auto &A) {
    if (b.transposed)
      product(A, view<T, Eigen::ColMajor>(b, k, n));
    else
      product(A, view<T, Eigen::RowMajor>(b, k, n));
  };
  if (a.transposed)
    withB(view<T, Eigen::ColMajor>(a, m, k));
  else
    withB(view<T, Eigen::RowMajor>(a, m, k));
}

void softmaxRows(const float *in, float *out, int64_t rows, int64_t length) {
  // The sum is kept in double across chunks summed in f32 vectors: a sum
  // of the row cast to double is one serial chain of scalar adds, which
  // took most of the kernel's time.
  constexpr int64_t kChunk = 256;
  for (int64_t r = 0; r < rows; ++r) {
    Eigen::Map<const Eigen::ArrayXf> x(in + r * length, length);
    Eigen::Map<Eigen::ArrayXf> y(out + r * length, length);
    y = (x - x.maxCoeff()).exp();
    double sum = 0;
    for (int64_t i = 0; i < length; i += kChunk)
      sum += y.segment(i, std::min(kChunk, length - i)).sum();
    y *= float(1.0 / sum);
  }
}

// The vector instruction sets Eigen enabled, from its own macros.
constexpr const char *kIsa = ""
#ifdef EIGEN_VECTORIZE_AVX512
                             "AVX512 "
#endif
#ifdef EIGEN_VECTORIZE_AVX2
                             "AVX2 "
#endif
#ifdef EIGEN_VECTORIZE_FMA
                             "FMA "
#endif
#ifdef EIGEN_VECTORIZE_SSE2
                             "SSE2"
#endif
    ;
const GemmKernels kernels{kIsa, packed::gemm, gemm<double>, softmaxRows};
} // namespace

extern "C" __attribute__((visibility("default"))) const GemmKernels *
SPMD_GEMM_ENTRY() {
  return &kernels;
}
