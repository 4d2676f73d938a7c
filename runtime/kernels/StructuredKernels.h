//===- StructuredKernels.h - Specialised kernels of linalg ops --*- C++ -*-===//
//
// The kernel model of every linalg structured op (LinalgKernels.cpp) tries
// these in order, then the general evaluator. Each recognises its kind of
// op by indexing maps and body (BodyPatterns.h) and returns nullopt for
// any other.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_KERNELS_STRUCTUREDKERNELS_H
#define SPMD_RUNTIME_KERNELS_STRUCTUREDKERNELS_H

#include "runtime/exec/Executable.h"

namespace spmd::runtime {

/// f32 contractions with a constant B through oneDNN's matmul, B reordered
/// when compiled (DnnlMatmulKernels.cpp).
std::optional<KernelBuilder> dnnlMatmulKernel(mlir::Operation *op);
/// Any multiply-add contraction, as batched GEMMs (EigenKernels.cpp).
std::optional<KernelBuilder> contractionKernel(mlir::Operation *op);
/// f32 NHWC and depthwise convolutions through oneDNN
/// (DnnlConvolutionKernels.cpp).
std::optional<KernelBuilder> dnnlConvolutionKernel(mlir::Operation *op);
/// 2-D convolutions through im2col and a GEMM (EigenKernels.cpp).
std::optional<KernelBuilder> convolutionKernel(mlir::Operation *op);
/// Transposes, broadcasts and copies (LayoutKernels.cpp).
std::optional<KernelBuilder> layoutKernel(mlir::Operation *op);
/// Folds over adjacent reduction loops (ReductionKernels.cpp).
std::optional<KernelBuilder> reductionKernel(mlir::Operation *op);
/// Pooling and depthwise convolutions (WindowKernels.cpp).
std::optional<KernelBuilder> windowKernel(mlir::Operation *op);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_KERNELS_STRUCTUREDKERNELS_H
