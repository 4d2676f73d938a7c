//===- GemmKernels.cpp - Eigen's GEMM for one instruction set -------------===//
//
// f32 runs the blocked GEMM of PackedGemm.h, f64 Eigen's. The math
// functions of f32 lanes (exp, tanh, erf, ...) and softmax's exp are
// Eigen's vectorised ones at this path's vector width: libm's take one
// lane at a time (3-11 ns each), and SLEEF's measured slower than Eigen's
// on both AVX2 and AVX-512 (tanh and erf by 6 to 10 times).
//
// Compiled once per CPU path (runtime/kernels/gemm/CMakeLists.txt), each time
// into its own shared library with hidden symbols: Eigen chooses its packet
// width from the compiler's flags, and the copies of its templates must not
// be merged across paths. SPMD_GEMM_ENTRY names the table's entry point.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/gemm/GemmKernels.h"
#include "runtime/kernels/gemm/PackedGemm.h"

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include <algorithm>
#include <cmath>
#include <cstring>

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

/// Whether x is a normal finite number, from its exponent bits (one
/// vectorised integer compare, where float compares would be scalar).
inline bool isNormalFinite(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  uint32_t exponent = (bits >> 23) & 0xff;
  return exponent - 1 < 0xfe; // not 0 (zero, subnormal), not 0xff (inf, NaN)
}

/// y = f(x) over n f32 lanes by Eigen's vectorised functions at this
/// library's vector width (`Fn::lanes` calls one on an array). Eigen's
/// take normal finite numbers: its logs read a subnormal as the smallest
/// normal, its tanh clamps NaN away. And they give normal results: its
/// AVX2 and SSE exp clamps its input at -88.7, where the result leaves the
/// normal floats, so exp(-100) came out 2.9e-39 and exp(-1e4) not 0. So
/// lanes holding or giving anything else (0, subnormals, infinities, NaN:
/// rare in practice, counted in one vector pass) are computed again by
/// libm (`Fn::one`). x and y may be one array.
template <typename Fn> void lanesF32(const float *x, float *y, int64_t n) {
  constexpr int64_t kChunk = 256;
  float in[kChunk];
  for (int64_t i = 0; i < n; i += kChunk) {
    int64_t m = std::min(kChunk, n - i);
    std::copy(x + i, x + i + m, in);
    Eigen::Map<Eigen::ArrayXf>(y + i, m) =
        Fn::lanes(Eigen::Map<const Eigen::ArrayXf>(in, m));
    int special = 0;
    for (int64_t k = 0; k < m; ++k)
      special += !isNormalFinite(in[k]) | !isNormalFinite(y[i + k]);
    for (int64_t k = 0; special && k < m; ++k)
      if (!isNormalFinite(in[k]) || !isNormalFinite(y[i + k]))
        y[i + k] = Fn::one(in[k]);
  }
}

// Per SCALAR_FLOAT_MATH row, its Eigen array method and its libm form.
#define SCALAR_FLOAT_MATH(Name, Op, Expr, Method)                              \
  struct Name##Lanes {                                                         \
    template <typename A> static auto lanes(const A &a) { return a.Method(); } \
    static float one(float x) { return (Expr); }                               \
  };
#include "runtime/kernels/ScalarOps.def"

void softmaxRows(const float *in, float *out, int64_t rows, int64_t length) {
  // The sum is kept in double across chunks summed in f32 vectors: a sum
  // of the row cast to double is one serial chain of scalar adds, which
  // took most of the kernel's time.
  constexpr int64_t kChunk = 256;
  for (int64_t r = 0; r < rows; ++r) {
    Eigen::Map<const Eigen::ArrayXf> x(in + r * length, length);
    Eigen::Map<Eigen::ArrayXf> y(out + r * length, length);
    // exp(x - max). Eigen's AVX2 and SSE exp clamps at -88.7, where the
    // result leaves the normal floats. Rows reaching below -87 (masked
    // scores) have the lanes whose result is not normal made again: 0
    // below -104 (where exp rounds to 0), else by libm.
    constexpr float kNormal = -87.0f, kUnderflow = -104.0f;
    float max = x.maxCoeff();
    y = (x - max).exp();
    if (x.minCoeff() - max < kNormal) {
      float *row = out + r * length;
      for (int64_t i = 0; i < length; ++i)
        if (!isNormalFinite(row[i])) {
          float d = in[r * length + i] - max;
          row[i] = d < kUnderflow ? 0.0f : std::exp(d);
        }
    }
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
const GemmKernels kernels{kIsa,
                          packed::gemm,
                          gemm<double>,
                          softmaxRows,
                          {
#define SCALAR_FLOAT_MATH(Name, Op, Expr, Method) &lanesF32<Name##Lanes>,
#include "runtime/kernels/ScalarOps.def"
                          }};
} // namespace

extern "C" __attribute__((visibility("default"))) const GemmKernels *
SPMD_GEMM_ENTRY() {
  return &kernels;
}
