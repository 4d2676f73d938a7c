//===- TensorOps.h - Whole-tensor helpers -------------------------*- C++
//-*-===//
//
// Concatenation, pieces along a dimension and elementwise reduction of host
// tensors: what collectives and host transfers are made of.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_TENSOROPS_H
#define SPMD_RUNTIME_TENSOROPS_H

#include "runtime/HostTensor.h"
#include "sharding/TensorSharding.h"

namespace spmd::runtime {

/// Copies the box [offsets, offsets + sizes) of `from` into `to` at
/// `toOffsets` (both row-major, same element type).
void copyBox(const HostTensor &from, llvm::ArrayRef<int64_t> offsets,
             llvm::ArrayRef<int64_t> sizes, HostTensor &to,
             llvm::ArrayRef<int64_t> toOffsets);

/// Piece `k` of `size` elements along `dim` (zeros past the end).
TensorRef piece(const HostTensor &t, int64_t dim, int64_t k, int64_t size);
/// The concatenation of `parts` along `dim`.
TensorRef concat(llvm::ArrayRef<TensorRef> parts, int64_t dim);
/// Copies element 0 of `t` to all its elements.
void broadcastFirst(HostTensor &t);
/// The first `size` elements along `dim`.
TensorRef truncate(const HostTensor &t, int64_t dim, int64_t size);
/// The elementwise reduction of `parts`, in order.
TensorRef reduce(llvm::ArrayRef<TensorRef> parts, ReductionKind kind);
/// Elements [begin, end) (row-major) of the reduction of `parts`, into `out`.
void reduceInto(llvm::ArrayRef<TensorRef> parts, ReductionKind kind,
                HostTensor &out, int64_t begin, int64_t end);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_TENSOROPS_H
