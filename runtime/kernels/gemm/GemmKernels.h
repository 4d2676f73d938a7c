//===- GemmKernels.h - GEMMs built for one instruction set ------*- C++ -*-===//
//
// The table each per-path kernel library (libSpmdGemm<Path>.so) exports:
// the GEMMs, and the other kernels whose speed is the vector width the
// library is compiled for (Eigen's vectorised math functions, softmax). Plain C
// types only: the libraries keep their Eigen private.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_GEMM_GEMMKERNELS_H
#define SPMD_RUNTIME_GEMM_GEMMKERNELS_H

#include <cstddef>
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

/// The math functions with vector code for f32 lanes (ScalarOps.def's
/// SCALAR_FLOAT_MATH rows).
enum class MathFunction : uint8_t {
#define SCALAR_FLOAT_MATH(Name, Op, Expr, Method) Name,
#include "runtime/kernels/ScalarOps.def"
  Count
};

/// y[i] = f(x[i]) for i < n (x and y may be the same array).
using LanesF32Fn = void (*)(const float *x, float *y, int64_t n);

struct GemmKernels {
  /// The vector instruction sets Eigen was compiled with ("AVX512 AVX2 FMA
  /// SSE2", ...).
  const char *isa;
  GemmFn<float> f32;
  GemmFn<double> f64;
  /// out[r] = softmax(in[r]) for `rows` contiguous rows of `length` floats:
  /// exp(x - max) over their sum (blocks of four vectors summed in f32,
  /// the blocks in double), within 4 ulp.
  void (*softmaxRowsF32)(const float *in, float *out, int64_t rows,
                         int64_t length);
  /// Each MathFunction over f32 lanes, within 4 ulp.
  LanesF32Fn mathF32[size_t(MathFunction::Count)];
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
