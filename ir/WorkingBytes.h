//===- WorkingBytes.h - Buffers a kernel allocates besides results -*- C++ -*-//
//
// The bytes of working buffers the runtime's kernel for an op allocates
// while it runs (a convolution's im2col matrix, oneDNN's scratchpad), from
// the op's local shapes: at most what the kernel allocates, which it
// checks, and what auto-sharding prices, so the plan's memory bounds the
// run's.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_WORKINGBYTES_H
#define SPMD_IR_WORKINGBYTES_H

#include "ir/Namespaces.h"
#include "mlir/IR/Operation.h"

#include <cstdint>

namespace mlir::spmd {

/// Working bytes of `op`'s kernel on one device whose operands have
/// `operandShapes` and results `resultShapes` (0: none).
int64_t workingBytes(Operation *op, ArrayRef<ArrayRef<int64_t>> operandShapes,
                     ArrayRef<ArrayRef<int64_t>> resultShapes);

/// The same for `op` as it is (a local op, whose types are its shapes).
int64_t workingBytes(Operation *op);

/// The part of a contraction's working bytes that oneDNN's matmul may use
/// as scratchpad (0: the contraction does not run there).
int64_t matmulLibraryBytes(Operation *op,
                           ArrayRef<ArrayRef<int64_t>> operandShapes);
int64_t matmulLibraryBytes(Operation *op);

} // namespace mlir::spmd

#endif // SPMD_IR_WORKINGBYTES_H
