//===- KernelInterface.h - How the executor runs an op ----------*- C++ -*-===//
//
// KernelOpInterface (KernelInterface.td), and the external models of the
// upstream ops the executor runs, one family per file in runtime/kernels/.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_KERNELINTERFACE_H
#define SPMD_RUNTIME_KERNELINTERFACE_H

#include "runtime/exec/Executable.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpDefinition.h"

#include "runtime/kernels/KernelInterface.h.inc"

namespace spmd::runtime {

/// Attaches every family's kernel models (each when its dialect is loaded).
/// Executable::compile adds them to the context of the module it compiles.
void registerKernelModels(mlir::DialectRegistry &registry);

// One function per family, each in its own file under runtime/kernels/.
void registerLinalgKernels(mlir::DialectRegistry &registry);
void registerSoftmaxKernels(mlir::DialectRegistry &registry);
void registerNormalizationKernels(mlir::DialectRegistry &registry);
void registerConvolutionKernels(mlir::DialectRegistry &registry);
void registerElementwiseKernels(mlir::DialectRegistry &registry);
void registerTensorKernels(mlir::DialectRegistry &registry);
void registerControlFlowKernels(mlir::DialectRegistry &registry);
void registerCollectiveKernels(mlir::DialectRegistry &registry);

/// The kernels of calls of the module's functions (any CallOpInterface op),
/// of returns (any ReturnLike op: a function's, or a region's to the op
/// running it) and of constants (ConstantLike), found by those interfaces
/// and traits rather than by a model.
llvm::Expected<Step> buildCallKernel(mlir::Operation *op,
                                     KernelContext &context);
llvm::Expected<Step> buildReturnKernel(mlir::Operation *op,
                                       KernelContext &context);
llvm::Expected<Step> buildConstantKernel(mlir::Operation *op,
                                         KernelContext &context);

/// Runs `op`'s one region; its yields are `op`'s results (as
/// scf.execute_region).
llvm::Expected<Step> buildRegionKernel(mlir::Operation *op,
                                       KernelContext &context);

/// The value of `v` when a constant or a load of a constant global defines
/// it, and is of `v`'s type.
std::optional<mlir::Attribute> constantValueOf(mlir::Value v);

/// The tensor of a constant's dense (or dense resource) value, made anew.
llvm::Expected<TensorRef> constantTensor(mlir::Operation *op,
                                         mlir::Attribute value);

/// A kernel builder as a plain function.
using KernelBuildFn = llvm::Expected<Step> (*)(mlir::Operation *,
                                               KernelContext &);

/// The model of an op whose kernel is built by `Build`.
template <typename OpTy, KernelBuildFn Build>
struct FunctionKernelModel
    : KernelOpInterface::ExternalModel<FunctionKernelModel<OpTy, Build>,
                                       OpTy> {
  llvm::Expected<Step> buildKernel(mlir::Operation *op,
                                   KernelContext &context) const {
    return Build(op, context);
  }
};

/// Makes `Build` the kernel of each of `OpTys`.
template <KernelBuildFn Build, typename... OpTys>
void attachKernel(mlir::MLIRContext *context) {
  (OpTys::template attachInterface<FunctionKernelModel<OpTys, Build>>(
       *context),
   ...);
}

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_KERNELINTERFACE_H
