//===- PackedGemm.h - A blocked f32 GEMM for one ISA ------------*- C++ -*-===//
//
// C += A * B in the shape of Goto's algorithm (as BLIS and OpenBLAS run
// it): B is packed a KC x NC block at a time into panels NR columns wide,
// A an MC x KC block at a time into panels MR rows tall, and a register
// tile of MR x NR accumulators runs over one A panel and one B panel. The
// B panel (KC x NR) stays in L1 while every A panel of the block (in L2)
// streams past it; each packed element is then read from cache, never
// strided from memory, whatever the operands' layout.
//
// Included by GemmKernels.cpp only, which is compiled once per CPU path:
// the vector width and the tile follow the instruction set it is built for.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_GEMM_PACKEDGEMM_H
#define SPMD_RUNTIME_GEMM_PACKEDGEMM_H

#include "runtime/kernels/gemm/GemmKernels.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

namespace spmd::runtime::packed {

#if defined(__AVX512F__)
using Vec = __m512;
constexpr int64_t kLanes = 16;
constexpr int64_t kMr = 12; // 24 accumulators of the 32 registers
inline Vec load(const float *p) { return _mm512_loadu_ps(p); }
inline void store(float *p, Vec v) { _mm512_storeu_ps(p, v); }
inline Vec splat(const float *p) { return _mm512_set1_ps(*p); }
inline Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
inline Vec zero() { return _mm512_setzero_ps(); }
#elif defined(__AVX2__) && defined(__FMA__)
using Vec = __m256;
constexpr int64_t kLanes = 8;
constexpr int64_t kMr = 6; // 12 accumulators of the 16 registers
inline Vec load(const float *p) { return _mm256_loadu_ps(p); }
inline void store(float *p, Vec v) { _mm256_storeu_ps(p, v); }
inline Vec splat(const float *p) { return _mm256_broadcast_ss(p); }
inline Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
inline Vec zero() { return _mm256_setzero_ps(); }
#else
using Vec = __m128;
constexpr int64_t kLanes = 4;
constexpr int64_t kMr = 6; // 12 accumulators, a temporary for the product
inline Vec load(const float *p) { return _mm_loadu_ps(p); }
inline void store(float *p, Vec v) { _mm_storeu_ps(p, v); }
inline Vec splat(const float *p) { return _mm_set1_ps(*p); }
inline Vec fma(Vec a, Vec b, Vec c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
inline Vec add(Vec a, Vec b) { return _mm_add_ps(a, b); }
inline Vec zero() { return _mm_setzero_ps(); }
#endif

constexpr int64_t kNr = 2 * kLanes;
// On AVX-512: a B panel of KC x NR floats is 32 KB (L1 holds 48 KB), an A
// block of MC x KC an eighth of L2 (measured best), a B block of KC x NC
// 4 MB (L3).
constexpr int64_t kKc = 256;
constexpr int64_t kMc = 20 * kMr;
constexpr int64_t kNc = 4096;
static_assert(kNc % kNr == 0 && kMc % kMr == 0);

/// The Rows x NR tile at `c` (row stride ldc) += the product of a packed A
/// panel (kc x MR, k-major) and a packed B panel (kc x NR, k-major), or =
/// it when `overwrite`. Only columns < nr are written. A panel's last rows
/// run with fewer accumulators rather than as zeros (m = 64 would waste 8
/// of 72 rows).
///
/// With PackB, B's panel is read from row-major `source` (row stride ldb,
/// all NR columns present) and packed into `b` as it is used: its loads
/// from memory then overlap this tile's arithmetic instead of stalling a
/// packing loop (skinny GEMMs spend much of their time reading B).
template <int Rows, bool PackB>
void tileKernel(int64_t kc, const float *__restrict a, float *__restrict b,
                float *c, int64_t ldc, int64_t nr, bool overwrite,
                const float *__restrict source, int64_t ldb) {
  // C is read once the sums are done: fetch it meanwhile.
  for (int64_t r = 0; r < Rows; ++r) {
    __builtin_prefetch(c + r * ldc, 1);
    __builtin_prefetch(c + r * ldc + nr - 1, 1);
  }
  Vec acc[Rows][2];
#pragma GCC unroll 16
  for (int64_t r = 0; r < Rows; ++r)
    acc[r][0] = acc[r][1] = zero();
  for (int64_t p = 0; p < kc; ++p) {
    Vec b0, b1;
    if constexpr (PackB) {
      b0 = load(source);
      b1 = load(source + kLanes);
      store(b, b0);
      store(b + kLanes, b1);
      // This panel's rows lie a page apart, beyond the hardware
      // prefetchers: ask for them ahead, and for the same row of the next
      // panel into L2 (from memory, a cold B is otherwise read at latency).
      __builtin_prefetch(source + 12 * ldb);
      __builtin_prefetch(source + 12 * ldb + kNr - 1);
      __builtin_prefetch(source + kNr, 0, 2);
      __builtin_prefetch(source + 2 * kNr - 1, 0, 2);
      source += ldb;
    } else {
      b0 = load(b);
      b1 = load(b + kLanes);
      __builtin_prefetch(b + 8 * kNr);
    }
    __builtin_prefetch(a + 8 * kMr);
#pragma GCC unroll 16
    for (int64_t r = 0; r < Rows; ++r) {
      Vec ar = splat(a + r);
      acc[r][0] = fma(ar, b0, acc[r][0]);
      acc[r][1] = fma(ar, b1, acc[r][1]);
    }
    a += kMr;
    b += kNr;
  }
  if (nr == kNr) {
#pragma GCC unroll 16
    for (int64_t r = 0; r < Rows; ++r) {
      float *row = c + r * ldc;
      if (overwrite) {
        store(row, acc[r][0]);
        store(row + kLanes, acc[r][1]);
      } else {
        store(row, add(load(row), acc[r][0]));
        store(row + kLanes, add(load(row + kLanes), acc[r][1]));
      }
    }
    return;
  }
  alignas(64) float tile[Rows][kNr];
  // Unrolled so that acc is indexed by constants only: indexed by a
  // variable, GCC keeps acc in memory and stores every accumulator on each
  // step of the loop above (the AVX2 kernel ran at half speed).
#pragma GCC unroll 16
  for (int64_t r = 0; r < Rows; ++r) {
    store(tile[r], acc[r][0]);
    store(tile[r] + kLanes, acc[r][1]);
    for (int64_t j = 0; j < nr; ++j)
      c[r * ldc + j] = overwrite ? tile[r][j] : c[r * ldc + j] + tile[r][j];
  }
}

using TileKernel = void (*)(int64_t, const float *, float *, float *, int64_t,
                            int64_t, bool, const float *, int64_t);

template <bool PackB, size_t... Rows>
constexpr std::array<TileKernel, sizeof...(Rows)>
tileKernels(std::index_sequence<Rows...>) {
  return {tileKernel<int(Rows) + 1, PackB>...};
}

/// tileKernel<mr> for mr in 1..MR; it packs B's panel from `source` into
/// `b` first when `source` is given.
inline void microKernel(int64_t kc, const float *a, float *b, float *c,
                        int64_t ldc, int64_t mr, int64_t nr, bool overwrite,
                        const float *source, int64_t ldb) {
  static constexpr auto kernels =
      tileKernels<false>(std::make_index_sequence<size_t(kMr)>());
  static constexpr auto packing =
      tileKernels<true>(std::make_index_sequence<size_t(kMr)>());
  (source ? packing : kernels)[mr - 1](kc, a, b, c, ldc, nr, overwrite, source,
                                       ldb);
}

/// dst[p * width + r] = rows[r][p] for r < count, p < kc, where row r is at
/// src + r * ld: a block of stored rows becomes k-major panel columns.
/// Rows count..width-1 of the panel are zeros.
inline void packRowsAsColumns(const float *src, int64_t ld, int64_t count,
                              int64_t kc, int64_t width, float *dst) {
  int64_t r = 0;
#if defined(__AVX__)
  for (; r + 8 <= count; r += 8) {
    int64_t p = 0;
    for (; p + 8 <= kc; p += 8) {
      __m256 x[8], y[8];
      for (int i = 0; i < 8; ++i)
        x[i] = _mm256_loadu_ps(src + (r + i) * ld + p);
      for (int i = 0; i < 8; i += 2) {
        y[i] = _mm256_unpacklo_ps(x[i], x[i + 1]);
        y[i + 1] = _mm256_unpackhi_ps(x[i], x[i + 1]);
      }
      for (int i = 0; i < 8; i += 4) {
        x[i] = _mm256_shuffle_ps(y[i], y[i + 2], 0x44);
        x[i + 1] = _mm256_shuffle_ps(y[i], y[i + 2], 0xEE);
        x[i + 2] = _mm256_shuffle_ps(y[i + 1], y[i + 3], 0x44);
        x[i + 3] = _mm256_shuffle_ps(y[i + 1], y[i + 3], 0xEE);
      }
      // x[0..3] hold columns 0, 1, 2, 3 (low halves) and 4..7 (high) of
      // rows 0-3; x[4..7] the same of rows 4-7.
      for (int i = 0; i < 4; ++i) {
        _mm256_storeu_ps(dst + (p + i) * width + r,
                         _mm256_permute2f128_ps(x[i], x[i + 4], 0x20));
        _mm256_storeu_ps(dst + (p + i + 4) * width + r,
                         _mm256_permute2f128_ps(x[i], x[i + 4], 0x31));
      }
    }
    for (; p < kc; ++p)
      for (int64_t i = 0; i < 8; ++i)
        dst[p * width + r + i] = src[(r + i) * ld + p];
  }
#endif
  for (; r + 4 <= count; r += 4) {
    int64_t p = 0;
    for (; p + 4 <= kc; p += 4) {
      __m128 x0 = _mm_loadu_ps(src + r * ld + p);
      __m128 x1 = _mm_loadu_ps(src + (r + 1) * ld + p);
      __m128 x2 = _mm_loadu_ps(src + (r + 2) * ld + p);
      __m128 x3 = _mm_loadu_ps(src + (r + 3) * ld + p);
      _MM_TRANSPOSE4_PS(x0, x1, x2, x3);
      _mm_storeu_ps(dst + p * width + r, x0);
      _mm_storeu_ps(dst + (p + 1) * width + r, x1);
      _mm_storeu_ps(dst + (p + 2) * width + r, x2);
      _mm_storeu_ps(dst + (p + 3) * width + r, x3);
    }
    for (; p < kc; ++p)
      for (int64_t i = 0; i < 4; ++i)
        dst[p * width + r + i] = src[(r + i) * ld + p];
  }
  for (; r < count; ++r)
    for (int64_t p = 0; p < kc; ++p)
      dst[p * width + r] = src[r * ld + p];
  for (; r < width; ++r)
    for (int64_t p = 0; p < kc; ++p)
      dst[p * width + r] = 0.0f;
}

/// Rows [i0, i0 + mc) and columns [p0, p0 + kc) of A into panels of MR
/// rows, each k-major; the last panel's missing rows are zeros.
inline void packA(GemmOperand<const float> a, int64_t i0, int64_t mc,
                  int64_t p0, int64_t kc, float *out) {
  for (int64_t i = 0; i < mc; i += kMr, out += kMr * kc) {
    int64_t rows = std::min(kMr, mc - i);
    if (a.transposed) {
      // A(i, p) = data[p * ld + i]: MR contiguous values per p.
      const float *src = a.data + p0 * a.ld + i0 + i;
      for (int64_t p = 0; p < kc; ++p, src += a.ld) {
        float *dst = out + p * kMr;
        std::memcpy(dst, src, rows * sizeof(float));
        std::fill(dst + rows, dst + kMr, 0.0f);
      }
      continue;
    }
    packRowsAsColumns(a.data + (i0 + i) * a.ld + p0, a.ld, rows, kc, kMr,
                      out);
  }
}

/// Rows [p0, p0 + kc) and columns [j0, j0 + cols) of B, cols <= NR, as
/// one k-major panel; missing columns are zeros. (Whole row-major panels
/// are packed by the first tile kernel that reads them instead.)
inline void packBPanel(GemmOperand<const float> b, int64_t p0, int64_t kc,
                       int64_t j0, int64_t cols, float *out) {
  if (b.transposed) {
    // B(p, j) = data[j * ld + p]: the panel's columns are stored rows.
    packRowsAsColumns(b.data + j0 * b.ld + p0, b.ld, cols, kc, kNr, out);
    return;
  }
  const float *src = b.data + p0 * b.ld + j0;
  for (int64_t p = 0; p < kc; ++p, src += b.ld) {
    float *dst = out + p * kNr;
    std::memcpy(dst, src, cols * sizeof(float));
    std::fill(dst + cols, dst + kNr, 0.0f);
  }
}

/// A buffer of 64-byte aligned floats kept per thread between calls.
inline float *scratch(std::unique_ptr<float, decltype(&std::free)> &buffer,
                      size_t &capacity, size_t floats) {
  if (floats > capacity) {
    buffer.reset(static_cast<float *>(
        std::aligned_alloc(64, (floats * sizeof(float) + 63) / 64 * 64)));
    capacity = floats;
  }
  return buffer.get();
}

/// C[m x n] (+)= A[m x k] * B[k x n] on the calling thread.
inline void gemm(GemmOperand<const float> a, GemmOperand<const float> b,
                 GemmOperand<float> c, int64_t m, int64_t k, int64_t n,
                 bool accumulate) {
  if (k == 0 && !accumulate)
    for (int64_t i = 0; i < m; ++i)
      std::fill(c.data + i * c.ld, c.data + i * c.ld + n, 0.0f);
  if (m == 0 || n == 0 || k == 0)
    return;
  thread_local std::unique_ptr<float, decltype(&std::free)> aBuffer(nullptr,
                                                                    std::free);
  thread_local std::unique_ptr<float, decltype(&std::free)> bBuffer(nullptr,
                                                                    std::free);
  thread_local size_t aCapacity = 0, bCapacity = 0;
  int64_t kcMax = std::min(kKc, k);
  int64_t mcMax = std::min(kMc, (m + kMr - 1) / kMr * kMr);
  int64_t ncMax = std::min(kNc, (n + kNr - 1) / kNr * kNr);
  // With one block of A's rows, each B panel is done with once its tiles
  // have run: one panel's buffer, which stays in L1, serves them all.
  // Packing into a fresh stretch of a KC x NC block instead fetches each
  // line of it from memory before writing it: a 4 MB block is not in cache
  // (64 x 1024 x 4096 took 10% longer, 8 x 4096 x 4096 on AVX-512 75%).
  bool onePanel = m <= kMc;
  float *packedA = scratch(aBuffer, aCapacity, mcMax * kcMax);
  float *packedB =
      scratch(bBuffer, bCapacity, (onePanel ? kNr : ncMax) * kcMax);
  for (int64_t j0 = 0; j0 < n; j0 += kNc) {
    int64_t nc = std::min(kNc, n - j0);
    for (int64_t p0 = 0; p0 < k; p0 += kKc) {
      int64_t kc = std::min(kKc, k - p0);
      for (int64_t i0 = 0; i0 < m; i0 += kMc) {
        int64_t mc = std::min(kMc, m - i0);
        packA(a, i0, mc, p0, kc, packedA);
        for (int64_t j = 0; j < nc; j += kNr) {
          // B's panels are packed where first used: the panel is still in
          // L1 for the kernels that read it (all of them when m <= MC).
          // A whole row-major panel is packed by the first tile's kernel.
          float *panelB = onePanel ? packedB : packedB + j * kc;
          int64_t cols = std::min(kNr, nc - j);
          const float *source = nullptr;
          if (i0 == 0 && cols == kNr && !b.transposed)
            source = b.data + p0 * b.ld + j0 + j;
          else if (i0 == 0)
            packBPanel(b, p0, kc, j0 + j, cols, panelB);
          for (int64_t i = 0; i < mc; i += kMr, source = nullptr)
            microKernel(kc, packedA + i * kc, panelB,
                        c.data + (i0 + i) * c.ld + j0 + j, c.ld,
                        std::min(kMr, mc - i), cols,
                        /*overwrite=*/!accumulate && p0 == 0, source, b.ld);
        }
      }
    }
  }
}

} // namespace spmd::runtime::packed

#endif // SPMD_RUNTIME_GEMM_PACKEDGEMM_H
