//===- KernelInterface.cpp - How the executor runs an op ------------------===//

#include "runtime/kernels/KernelInterface.h"

using namespace mlir;

#include "runtime/kernels/KernelInterface.cpp.inc"

void spmd::runtime::registerKernelModels(DialectRegistry &registry) {
  registerLinalgKernels(registry);
  registerSoftmaxKernels(registry);
  registerNormalizationKernels(registry);
  registerConvolutionKernels(registry);
  registerElementwiseKernels(registry);
  registerTensorKernels(registry);
  registerControlFlowKernels(registry);
  registerCollectiveKernels(registry);
}
