//===- GemmKernels.cpp - Eigen's GEMM for one instruction set -------------===//
//
// f32 runs the blocked GEMM of PackedGemm.h, f64 Eigen's. The math
// functions of f32 lanes (exp, tanh, erf, ...) and softmax's exp are
// Eigen's vectorised ones at this path's vector width: libm's take one
// lane at a time (3-11 ns each), and SLEEF's measured slower than Eigen's
// on both AVX2 and AVX-512 (tanh and erf by 6 to 10 times). The AVX2
// path's exp is Eigen's AVX-512 algorithm on 8 lanes (exp8).
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
#include <immintrin.h>

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
      special += int(!isNormalFinite(in[k])) | int(!isNormalFinite(y[i + k]));
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

#if defined(EIGEN_VECTORIZE_AVX2) && !defined(EIGEN_VECTORIZE_AVX512)
#define SPMD_OWN_EXP_F32 1
/// exp of 8 lanes as Eigen computes it on AVX-512, where its AVX2 path
/// (Eigen 3.4) scales by a general ldexp: 0.33 against 0.49 ns a lane.
/// Eigen's range reduction and polynomial (Cephes); 2^m from the exponent
/// bits, as two normal factors where the result is not a normal float, so
/// results below 2^-126 are the subnormals (or 0) they should be.
inline __m256 exp8(__m256 x) {
  auto splat = [](float v) { return _mm256_set1_ps(v); };
  __m256 c = _mm256_min_ps(_mm256_max_ps(x, splat(-104.0f)), splat(89.0f));
  __m256 m = _mm256_floor_ps(
      _mm256_fmadd_ps(c, splat(1.44269504088896341f), splat(0.5f)));
  __m256 r = _mm256_fmadd_ps(m, splat(-0.693359375f), c);
  r = _mm256_fmadd_ps(m, splat(2.12194440e-4f), r);
  __m256 r2 = _mm256_mul_ps(r, r), r3 = _mm256_mul_ps(r2, r);
  __m256 y =
      _mm256_fmadd_ps(splat(1.9875691500E-4f), r, splat(1.3981999507E-3f));
  __m256 y1 =
      _mm256_fmadd_ps(splat(4.1665795894E-2f), r, splat(1.6666665459E-1f));
  y = _mm256_fmadd_ps(y, r, splat(8.3334519073E-3f));
  y1 = _mm256_fmadd_ps(y1, r, splat(5.0000001201E-1f));
  y = _mm256_fmadd_ps(y, r3, y1);
  y = _mm256_fmadd_ps(y, r2, _mm256_add_ps(r, splat(1.0f)));
  auto pow2 = [](__m256 e) {
    __m256i bits =
        _mm256_add_epi32(_mm256_cvtps_epi32(e), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(bits, 23));
  };
  __m256 outside = _mm256_or_ps(_mm256_cmp_ps(m, splat(-126.0f), _CMP_LT_OQ),
                                _mm256_cmp_ps(m, splat(127.0f), _CMP_GT_OQ));
  __m256 result;
  if (_mm256_movemask_ps(outside) == 0) {
    result = _mm256_mul_ps(y, pow2(m));
  } else {
    __m256 half = _mm256_floor_ps(_mm256_mul_ps(m, splat(0.5f)));
    result = _mm256_mul_ps(_mm256_mul_ps(y, pow2(half)),
                           pow2(_mm256_sub_ps(m, half)));
  }
  // max takes its second operand where one is NaN: NaN stays NaN.
  return _mm256_max_ps(result, x);
}

/// y = exp(x - shift) over n lanes; returns their sum, in f32 vectors over
/// chunks of 256 lanes added in double.
double expShifted(const float *x, float shift, float *y, int64_t n) {
  constexpr int64_t kChunk = 256;
  __m256 s = _mm256_set1_ps(shift);
  double sum = 0;
  for (int64_t i = 0; i < n;) {
    int64_t end = std::min(n, i + kChunk);
    __m256 acc = _mm256_setzero_ps();
    for (; i + 8 <= end; i += 8) {
      __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), s));
      _mm256_storeu_ps(y + i, e);
      acc = _mm256_add_ps(acc, e);
    }
    if (i < end) { // the last lanes, padded with exp(-inf) = 0
      float in[8], out[8];
      std::fill(in, in + 8, -INFINITY);
      std::copy(x + i, x + end, in);
      __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(in), s));
      _mm256_storeu_ps(out, e);
      std::copy(out, out + (end - i), y + i);
      acc = _mm256_add_ps(acc, e);
      i = end;
    }
    float lanes[8];
    _mm256_storeu_ps(lanes, acc);
    for (float lane : lanes)
      sum += lane;
  }
  return sum;
}

template <> void lanesF32<ExpLanes>(const float *x, float *y, int64_t n) {
  (void)expShifted(x, 0.0f, y, n);
}
#endif

void softmaxRows(const float *in, float *out, int64_t rows, int64_t length) {
  for (int64_t r = 0; r < rows; ++r) {
    Eigen::Map<const Eigen::ArrayXf> x(in + r * length, length);
    Eigen::Map<Eigen::ArrayXf> y(out + r * length, length);
    float max = x.maxCoeff();
#ifdef SPMD_OWN_EXP_F32
    double sum = expShifted(x.data(), max, y.data(), length);
#else
    // exp(x - max), fused with the subtraction: lanesF32's copy and
    // count passes took 2.4 times as long on AVX-512. Eigen's exp is not
    // exact where the result leaves the normal floats (its SSE one clamps
    // at -88.7), so rows reaching below -87 (masked scores) have those
    // lanes made again: 0 below -104 (where exp rounds to 0), else libm.
    constexpr float kNormal = -87.0f, kUnderflow = -104.0f;
    y = (x - max).exp();
    if (x.minCoeff() - max < kNormal)
      for (int64_t i = 0; i < length; ++i)
        if (!isNormalFinite(y[i])) {
          float d = x[i] - max;
          y[i] = d < kUnderflow ? 0.0f : std::exp(d);
        }
    // The sum is kept in double across chunks summed in f32 vectors: a sum
    // of the row cast to double is one serial chain of scalar adds, which
    // took most of the kernel's time.
    constexpr int64_t kChunk = 256;
    double sum = 0;
    for (int64_t i = 0; i < length; i += kChunk)
      sum += y.segment(i, std::min(kChunk, length - i)).sum();
#endif
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
