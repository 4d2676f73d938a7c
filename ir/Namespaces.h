//===- Namespaces.h - MLIR-free names seen from the compiler ----*- C++ -*-===//
//
// The compiler (mlir::spmd) is written against the MLIR-free libraries
// (meshes, shardings, rules, layouts, reshard plans), which live in ::spmd
// so that the runtime shares them without MLIR: their names read
// unqualified in the compiler, without a ::spmd:: prefix.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_NAMESPACES_H
#define SPMD_IR_NAMESPACES_H

namespace spmd {}

namespace mlir::spmd {
using namespace ::spmd;
} // namespace mlir::spmd

#endif // SPMD_IR_NAMESPACES_H
