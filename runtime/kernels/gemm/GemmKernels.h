//===- GemmKernels.h - GEMMs built for one instruction set ------*- C++ -*-===//
//
// The table each per-path kernel library (libSpmdGemm<Path>.so) exports:
// the GEMMs, and the other kernels whose speed is Eigen's vector width
// (vectorised exp). Plain C types only: the libraries keep their Eigen
// private.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_GEMM_GEMMKERNELS_H
#define SPMD_RUNTIME_GEMM_GEMMKERNELS_H

#include <cstdint>

namespace spmd::runtime {

/// One operand of a GEMM: element (i, j) of the logical [rows x cols]
/// matrix is at data[i * ld + j], or data[j * ld + i] when `transposed`.
template <typename T> struct GemmOperand {
  T *data;
  int64_t ld;
  bool transposed = false;
};

/// C[m x n] += A[m x k] * B[k x n], or C = A * B unless `accumulate` (C is
/// then only written); C is row-major (never transposed).
template <typename T>
using GemmFn = void (*)(GemmOperand<const T> a, GemmOperand<const T> b,
                        GemmOperand<T> c, int64_t m, int64_t k, int64_t n,
                        bool accumulate);

struct GemmKernels {
  /// The vector instruction sets Eigen was compiled with ("AVX512 AVX2 FMA
  /// SSE2", ...).
  const char *isa;
  GemmFn<float> f32;
  GemmFn<double> f64;
  /// out[r] = softmax(in[r]) for `rows` contiguous rows of `length` floats:
  /// exp(x - max) over their sum (kept in double).
  void (*softmaxRowsF32)(const float *in, float *out, int64_t rows,
                         int64_t length);
};

/// The kernels of the current CPU path (runtime/kernels/CpuPath.cpp).
const GemmKernels &gemmKernels();

} // namespace spmd::runtime

extern "C" {
const spmd::runtime::GemmKernels *spmdGemmKernelsBaseline();
const spmd::runtime::GemmKernels *spmdGemmKernelsAvx2();
const spmd::runtime::GemmKernels *spmdGemmKernelsAvx512();
}

#endif // SPMD_RUNTIME_GEMM_GEMMKERNELS_H
