//===- Locations.h - Locations as compilers print them ----------*- C++ -*-===//
//
// Errors that leave MLIR's diagnostic engine as text (llvm::Error of the
// runtime, pipeline errors collected by the tools) name their place as
// mlir-opt does: `file:line:col: error: ...`, not as `loc("file":l:c)`.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_LOCATIONS_H
#define SPMD_IR_LOCATIONS_H

#include "ir/Namespaces.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::spmd {

/// Prints `loc` as `file:line:col` (through names and fusions, to the
/// first file location); locations without one print in MLIR's form.
void printFileLineCol(llvm::raw_ostream &os, Location loc);

} // namespace mlir::spmd

#endif // SPMD_IR_LOCATIONS_H
