//===- EigenGemm.h - Eigen's GEMM built for the bench's machine -*- C++ -*-===//
//
// EigenGemm.cpp is compiled with the flags of the best CPU path this build
// has (bench/CMakeLists.txt), so the baseline is Eigen built for the
// instruction set the runtime's kernels use. Only plain types cross here:
// Eigen's templates stay in that one file.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_BENCH_EIGENGEMM_H
#define SPMD_BENCH_EIGENGEMM_H

#include <cstdint>

namespace spmd::bench {
/// The CPU path EigenGemm.cpp was compiled for ("baseline", "avx2", ...).
const char *eigenGemmPath();
/// C[m x n] += A[m x k] * B[k x n], row-major, one thread.
void eigenGemm(const float *a, const float *b, float *c, int64_t m, int64_t k,
               int64_t n);
} // namespace spmd::bench

#endif // SPMD_BENCH_EIGENGEMM_H
