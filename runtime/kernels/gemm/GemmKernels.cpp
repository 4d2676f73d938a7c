//===- GemmKernels.cpp - Eigen's GEMM for one instruction set -------------===//
//
// f32 runs the blocked GEMM of PackedGemm.h, f64 Eigen's. The math
// functions of f32 lanes (tanh, erf, ...) are Eigen's vectorised ones at
// this path's vector width: libm's take one lane at a time (3-11 ns each),
// and SLEEF's measured slower than Eigen's on both AVX2 and AVX-512 (tanh
// and erf by 6 to 10 times). exp, for math lanes and softmax rows, is this
// file's own, written with Eigen's packet functions (expAny).
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
    // Eigen's product of small matrices starts each sum at its first
    // term: -0.0 where every product is, though a +0.0 init gives +0.0.
    if (!accumulate)
      C.setZero();
    C.noalias() += A * B;
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

/// Whether x is finite and at least 2^-100 in magnitude, from its exponent
/// bits (one vectorised integer compare, where float compares would be
/// scalar). Below, Eigen's functions may pass through subnormals: its erf
/// was 23 ulp off at 1.2e-38.
inline bool isWellInRange(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  uint32_t exponent = (bits >> 23) & 0xff;
  constexpr uint32_t kLowest = 127 - 100;
  return exponent - kLowest < 0xff - kLowest; // not below, not inf or NaN
}

/// y = f(x) over n f32 lanes by Eigen's vectorised functions at this
/// library's vector width (`Fn::lanes` calls one on an array). Eigen's
/// take normal finite numbers: its logs read a subnormal as the smallest
/// normal, its tanh clamps NaN away. And they are exact only for results
/// well above the subnormals (Eigen's AVX2 and SSE exp clamped at -88.7,
/// giving exp(-100) as 2.9e-39; exp has its own lanes below). So lanes
/// holding or giving anything else (0, tiny numbers, infinities, NaN:
/// rare in practice, counted in one vector pass) are computed again by
/// libm (`Fn::one`).
/// x and y may be one array.
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
      special += int(!isWellInRange(in[k])) | int(!isWellInRange(y[i + k]));
    for (int64_t k = 0; special && k < m; ++k)
      if (!isWellInRange(in[k]) || !isWellInRange(y[i + k]))
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

// exp over f32 vectors of this path's width, through Eigen's packet
// functions. Eigen 3.4's own exp is not used: its AVX-512 one reduces the
// argument by ln 2 as one f32 constant, 5 ulp off from |x| = 60 on; its
// AVX2 one scales by a general ldexp (0.49 against 0.33 ns a lane); its
// AVX2 and SSE ones clamp at -88.7, where results leave the normal floats.
namespace ei = Eigen::internal;
using Packet = ei::packet_traits<float>::type;
using PacketI = ei::unpacket_traits<Packet>::integer_packet;
constexpr int64_t kLanes = ei::unpacket_traits<Packet>::size;

/// exp(x) = 2^n (1 + p) for integral n = round(x log2(e)): returns p, from
/// x reduced by Cephes's two constants (n ln 2 is exact in the first) and a
/// degree-6 polynomial fitted to exp on [-ln2/2, ln2/2] (relative error
/// 2e-9). With the scaling below, expNormal and expAny are within 1.18 ulp
/// of exp over every f32 in [-104, 89] (1.174 at worst, at x = 5.19997;
/// Cephes's degree 7 gave 1.28).
/// Horner's form takes the fewest multiplies; the loops keep enough
/// vectors in flight to hide its latency.
inline Packet expPolynomial(Packet x, Packet n) {
  auto splat = [](float v) { return ei::pset1<Packet>(v); };
  Packet r = ei::pmadd(n, splat(-0.693359375f), x);
  r = ei::pmadd(n, splat(2.12194440e-4f), r);
  Packet p = ei::pmadd(splat(0x1.6ae6cp-10f), r, splat(0x1.1267d6p-7f));
  p = ei::pmadd(p, r, splat(0x1.555824p-5f));
  p = ei::pmadd(p, r, splat(0x1.555418p-3f));
  p = ei::pmadd(p, r, splat(0x1.fffffcp-2f));
  return ei::pmadd(p, ei::pmul(r, r), r);
}

constexpr float kLog2e = 1.44269504088896341f;

/// 2^e for integral e in [-126, 127], from the exponent bits.
inline Packet pow2(Packet e) {
  PacketI biased =
      ei::padd(ei::pcast<Packet, PacketI>(e), ei::pset1<PacketI>(127));
  return ei::preinterpret<Packet>(ei::plogical_shift_left<23>(biased));
}

/// exp of x in [-87, 0], whose result is a normal float (a softmax row's
/// lanes, shifted by its maximum, mostly): no clamping or checks. n is
/// rounded by adding 1.5 2^23, whose low mantissa bits then hold n, so
/// 2^n is those bits shifted into the exponent.
inline Packet expNormal(Packet x) {
  const Packet magic = ei::pset1<Packet>(12582912.0f);
  Packet z = ei::pmadd(x, ei::pset1<Packet>(kLog2e), magic);
  Packet p = expPolynomial(x, ei::psub(z, magic));
  Packet scale = ei::preinterpret<Packet>(
      ei::padd(ei::plogical_shift_left<23>(ei::preinterpret<PacketI>(z)),
               ei::pset1<PacketI>(0x3f800000)));
  return ei::pmadd(p, scale, scale);
}

/// exp of any lanes. 2^n is built as two normal factors where the result
/// is not a normal float, so results below 2^-126 are the subnormals (or 0)
/// they should be, and those above the floats infinity.
inline Packet expAny(Packet x) {
  auto splat = [](float v) { return ei::pset1<Packet>(v); };
  Packet c = ei::pmin(ei::pmax(x, splat(-104.0f)), splat(89.0f));
  Packet n = ei::pfloor(ei::pmadd(c, splat(kLog2e), splat(0.5f)));
  Packet p = expPolynomial(c, n);
  Packet outside =
      ei::por(ei::pcmp_lt(n, splat(-126.0f)), ei::pcmp_lt(splat(127.0f), n));
  Packet result;
  if (!ei::predux_any(outside)) {
    Packet scale = pow2(n);
    result = ei::pmadd(p, scale, scale);
  } else {
    Packet half = ei::pfloor(ei::pmul(n, splat(0.5f)));
    Packet scale = pow2(half);
    result = ei::pmul(ei::pmadd(p, scale, scale), pow2(ei::psub(n, half)));
  }
  return ei::pselect(ei::pcmp_eq(x, x), result, x); // NaN stays NaN
}

/// A vector of doubles, to which addWidened adds a Packet's f32 lanes.
#if defined(EIGEN_VECTORIZE_AVX512)
using Doubles = __m512d;
inline Doubles zeroDoubles() { return _mm512_setzero_pd(); }
inline void addWidened(__m512 e, Doubles &sum) {
  __m512d low = _mm512_cvtps_pd(_mm512_castps512_ps256(e));
  __m512d high = _mm512_cvtps_pd(
      _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(e), 1)));
  sum = _mm512_add_pd(sum, _mm512_add_pd(low, high));
}
#elif defined(EIGEN_VECTORIZE_AVX)
using Doubles = __m256d;
inline Doubles zeroDoubles() { return _mm256_setzero_pd(); }
inline void addWidened(__m256 e, Doubles &sum) {
  __m256d low = _mm256_cvtps_pd(_mm256_castps256_ps128(e));
  __m256d high = _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1));
  sum = _mm256_add_pd(sum, _mm256_add_pd(low, high));
}
#else
using Doubles = __m128d;
inline Doubles zeroDoubles() { return _mm_setzero_pd(); }
inline void addWidened(__m128 e, Doubles &sum) {
  sum = _mm_add_pd(
      sum, _mm_add_pd(_mm_cvtps_pd(e), _mm_cvtps_pd(_mm_movehl_ps(e, e))));
}
#endif

/// Adds to `sum` the vectors `at(i)` gives for i = 0, kLanes, 2 kLanes, ...
/// (called in that order) while a whole vector fits in n lanes; returns
/// the lanes added. Blocks of four vectors are summed in f32 lanes and the
/// blocks in double lanes: a sum in f32
/// lanes alone lost the terms below half an ulp of a large one (62 ulp off
/// on a softmax row of one large exp and many tiny ones); within a block
/// at most three are lost, 1.5 ulp. Widening each vector cost a quarter
/// more time on the AVX2 path.
template <typename At> int64_t addVectors(int64_t n, At at, Doubles &sum) {
  int64_t i = 0;
  for (; i + 4 * kLanes <= n; i += 4 * kLanes) {
    // Named, so that they are called in order.
    Packet a = at(i), b = at(i + kLanes), c = at(i + 2 * kLanes),
           d = at(i + 3 * kLanes);
    addWidened(ei::padd(ei::padd(a, b), ei::padd(c, d)), sum);
  }
  for (; i + kLanes <= n; i += kLanes)
    addWidened(at(i), sum);
  return i;
}

/// The sum of `sum`'s lanes.
double total(Doubles sum) {
  double parts[kLanes / 2];
  std::memcpy(parts, &sum, sizeof sum);
  double result = 0;
  for (double part : parts)
    result += part;
  return result;
}

/// Whether a softmax row sums its exps as it computes them, or in a pass
/// of its own over the row (in L1). With AVX-512's 32 registers the first
/// took 1.35 ms against 1.53 (4096 rows of 1024); with AVX2's 16 the
/// sum's accumulator was spilled and the second took 1.41-1.44 ms against
/// 1.57-1.62 (AMD EPYC Zen 4).
constexpr bool kSumWithExp = EIGEN_ARCH_DEFAULT_NUMBER_OF_REGISTERS >= 32;

/// y = exp(x - shift) over n lanes; returns their sum if `Sum` (else 0).
/// `Exp` computes a vector.
template <Packet (*Exp)(Packet), bool Sum>
double expShifted(const float *x, float shift, float *y, int64_t n) {
  Packet s = ei::pset1<Packet>(shift);
  auto exps = [&](int64_t i) {
    Packet e = Exp(ei::psub(ei::ploadu<Packet>(x + i), s));
    ei::pstoreu(y + i, e);
    return e;
  };
  Doubles sum = zeroDoubles();
  int64_t i = 0;
  if constexpr (Sum)
    i = addVectors(n, exps, sum);
  else
    for (; i + kLanes <= n; i += kLanes)
      exps(i);
  if (i < n) { // the last lanes, padded with exp(-inf) = 0
    float lanes[kLanes];
    std::fill(lanes, lanes + kLanes, -INFINITY);
    std::copy(x + i, x + n, lanes);
    Packet e = expAny(ei::psub(ei::ploadu<Packet>(lanes), s));
    ei::pstoreu(lanes, e);
    std::copy(lanes, lanes + (n - i), y + i);
    if constexpr (Sum)
      addWidened(e, sum);
  }
  return total(sum);
}

template <> void lanesF32<ExpLanes>(const float *x, float *y, int64_t n) {
  (void)expShifted<expAny, false>(x, 0.0f, y, n);
}

/// The sum of n lanes, as addVectors sums them.
double sumWidened(const float *y, int64_t n) {
  Doubles sum = zeroDoubles();
  int64_t i = addVectors(
      n, [&](int64_t i) { return ei::ploadu<Packet>(y + i); }, sum);
  double result = total(sum);
  for (; i < n; ++i)
    result += y[i];
  return result;
}

/// The maximum of n lanes; `normal` tells whether every exp(x - max) is a
/// normal float: nothing 87 or more below the maximum (so no infinities;
/// a NaN lane gives NaN either way, and so the whole row).
float rowMax(const float *x, int64_t n, bool &normal) {
  // Four vectors at a time, each into its own maximum and minimum: with
  // one chain of dependent max instructions the softmax took 8% longer on
  // the AVX2 path.
  Packet hi[4], lo[4];
  for (int k = 0; k < 4; ++k)
    hi[k] = ei::pset1<Packet>(-INFINITY), lo[k] = ei::pset1<Packet>(INFINITY);
  int64_t i = 0;
  for (; i + 4 * kLanes <= n; i += 4 * kLanes)
    for (int k = 0; k < 4; ++k) {
      Packet v = ei::ploadu<Packet>(x + i + k * kLanes);
      hi[k] = ei::pmax(hi[k], v);
      lo[k] = ei::pmin(lo[k], v);
    }
  for (; i + kLanes <= n; i += kLanes) {
    Packet v = ei::ploadu<Packet>(x + i);
    hi[0] = ei::pmax(hi[0], v);
    lo[0] = ei::pmin(lo[0], v);
  }
  float max =
      ei::predux_max(ei::pmax(ei::pmax(hi[0], hi[1]), ei::pmax(hi[2], hi[3])));
  float min =
      ei::predux_min(ei::pmin(ei::pmin(lo[0], lo[1]), ei::pmin(lo[2], lo[3])));
  for (; i < n; ++i)
    max = std::max(max, x[i]), min = std::min(min, x[i]);
  normal = min - max > -87.0f;
  return max;
}

void softmaxRows(const float *in, float *out, int64_t rows, int64_t length) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *x = in + r * length;
    float *y = out + r * length;
    bool normal;
    float max = rowMax(x, length, normal);
    double sum = normal ? expShifted<expNormal, kSumWithExp>(x, max, y, length)
                        : expShifted<expAny, kSumWithExp>(x, max, y, length);
    if (!kSumWithExp)
      sum = sumWidened(y, length);
    Eigen::Map<Eigen::ArrayXf>(y, length) *= float(1.0 / sum);
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
