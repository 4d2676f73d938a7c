//===- LibraryKernels.cpp - The field's libraries on our threads ----------===//

#include "runtime/kernels/LibraryKernels.h"
#include "runtime/kernels/CpuPath.h"

#include <cblas.h>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string>

extern "C" char *openblas_get_corename(void);

namespace spmd::runtime {

/// Below this many rows our packed AVX2 kernel, which streams B while it
/// packs it, beats OpenBLAS (measured at k = n = 4096).
constexpr int64_t kOpenBlasMinRows = 8;

/// OpenBLAS's f32 GEMM, single-threaded, with the contract of
/// GemmFn<float>.
static void openBlasGemm(GemmOperand<const float> a, GemmOperand<const float> b,
                         GemmOperand<float> c, int64_t m, int64_t k, int64_t n,
                         bool accumulate) {
  assert(!c.transposed && "GEMM results are row-major");
  // OpenBLAS's thread count is process-wide: another caller (a baseline
  // in the bench) may have raised it.
  if (openblas_get_num_threads() != 1)
    openblas_set_num_threads(1);
  cblas_sgemm(CblasRowMajor, a.transposed ? CblasTrans : CblasNoTrans,
              b.transposed ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a.data,
              a.ld, b.data, b.ld, accumulate ? 1.0f : 0.0f, c.data, c.ld);
}

/// Whether BLAS takes these operands: leading dimensions it accepts and
/// sizes that fit its 32-bit integers. Views whose dimensions have size 1
/// may carry any stride, and an empty K is ours too (oneDNN's sgemm left C
/// unwritten there; a library's quick return is not the contract): our
/// kernel takes those.
static bool blasTakes(GemmOperand<const float> a, GemmOperand<const float> b,
                      GemmOperand<float> c, int64_t m, int64_t k, int64_t n) {
  auto fits = [](int64_t ld, int64_t rows, int64_t cols, bool transposed) {
    int64_t minimum = std::max<int64_t>(1, transposed ? rows : cols);
    return ld >= minimum && ld <= INT32_MAX && rows <= INT32_MAX &&
           cols <= INT32_MAX;
  };
  return k > 0 && fits(a.ld, m, k, a.transposed) &&
         fits(b.ld, k, n, b.transposed) && fits(c.ld, m, n, false);
}

void pathGemm(GemmOperand<const float> a, GemmOperand<const float> b,
              GemmOperand<float> c, int64_t m, int64_t k, int64_t n,
              bool accumulate) {
  if (cpuPath() == CpuPath::Avx2 && m >= kOpenBlasMinRows &&
      blasTakes(a, b, c, m, k, n))
    return openBlasGemm(a, b, c, m, k, n, accumulate);
  gemmKernels().f32(a, b, c, m, k, n, accumulate);
}

std::string libraryIsas() {
  return std::string("OpenBLAS ") + openblas_get_corename();
}

} // namespace spmd::runtime
