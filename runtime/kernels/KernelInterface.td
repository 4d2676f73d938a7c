//===- KernelInterface.td - How the executor runs an op ----*- tablegen -*-===//
//
// The runtime's extension point of an op, beside its ShardingOpInterface:
// the kernel that runs it on one device. Upstream ops get it through
// external models (runtime/kernels/), a user's op through its own.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_KERNELINTERFACE_TD
#define SPMD_RUNTIME_KERNELINTERFACE_TD

include "mlir/IR/OpBase.td"

def Spmd_KernelOpInterface : OpInterface<"KernelOpInterface"> {
  let cppNamespace = "::spmd::runtime";
  let description = [{
    Compiles the op once into a step of the executable: a closure holding
    whatever it precomputed (shapes, strides, compiled bodies) that reads
    its operands from the frame slots of `context` and writes its results.
    Calls and returns need none: the executor runs any CallOpInterface op
    whose callee is a function of the module, and any ReturnLike op.
  }];
  let methods = [
    InterfaceMethod<[{
        The step running this op, or an error naming what is not supported
        (opError gives it the op's location).
      }], "::llvm::Expected<::spmd::runtime::Step>", "buildKernel",
      (ins "::spmd::runtime::KernelContext &":$context)>,
  ];
}

#endif // SPMD_RUNTIME_KERNELINTERFACE_TD
