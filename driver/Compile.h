//===- Compile.h - A program compiled for the devices -----------*- C++ -*-===//
//
// What spmd-run and the C++ API call: the pipeline's phases on a module
// (Pipeline.h), then the runtime's program loaded from the result, with
// the unpartitioned programs a check runs built when it first needs them.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_DRIVER_COMPILE_H
#define SPMD_DRIVER_COMPILE_H

#include "driver/Pipeline.h"
#include "runtime/exec/LoadedProgram.h"

namespace spmd::driver {

/// Runs the phases `first` to `last` on `module`; its errors (and their
/// notes) as one error of `file:line:col: error: ...` lines, warnings and
/// remarks dropped.
llvm::Error runPipeline(mlir::ModuleOp module, const PipelineOptions &options,
                        Phase first, Phase last);

/// Compiles `module` (consumed) for its mesh's devices: every phase unless
/// it is already partitioned, then the executable. `entry` empty means the
/// function no other function calls. `onPartitioned` sees the module once
/// partitioned, before the executor's phases. `inOneProcess` runs every
/// device in this process even under MPI (a check's reference, which one
/// process runs alone).
llvm::Expected<std::unique_ptr<runtime::LoadedProgram>>
compile(mlir::OwningOpRef<mlir::ModuleOp> module, llvm::StringRef entry,
        const PipelineOptions &options = {},
        llvm::function_ref<void(mlir::ModuleOp)> onPartitioned = {},
        bool inOneProcess = false);

} // namespace spmd::driver

#endif // SPMD_DRIVER_COMPILE_H
