//===- LibraryKernels.h - The field's libraries on our threads --*- C++ -*-===//
//
// OpenBLAS chooses its AVX2 or AVX-512 code when it loads and reaches the
// machine's limit; our own AVX2 GEMM measures as fast, not faster. Each CPU
// path takes the library unless ours is measured faster (bench/README.md):
// on AVX2, OpenBLAS's, except for few rows, where our packed kernel
// streams B faster; on AVX-512, ours (oneDNN's and OpenBLAS's measured no
// faster on large GEMMs and slower on small ones, with B given each call;
// a large contraction with a constant B goes to oneDNN's matmul instead
// where it has brgemm code, DnnlMatmulKernels.cpp).
// OpenBLAS runs on the calling thread alone: the runtime splits work over the
// device's threads itself, so OpenBLAS's never add to the device pool.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_LIBRARYKERNELS_H
#define SPMD_RUNTIME_LIBRARYKERNELS_H

#include "runtime/kernels/gemm/GemmKernels.h"

#include <string>

namespace spmd::runtime {

/// The f32 GEMM of the current CPU path (a GemmFn<float>): the path's
/// library, or our kernel where it is faster or the library refuses the
/// operands' strides.
void pathGemm(GemmOperand<const float> a, GemmOperand<const float> b,
              GemmOperand<float> c, int64_t m, int64_t k, int64_t n,
              bool accumulate);

/// What the libraries run here, for reports: "OpenBLAS Haswell".
std::string libraryIsas();

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_LIBRARYKERNELS_H
