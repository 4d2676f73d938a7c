//===- TensorOps.h - Whole-tensor helpers -----------------------*- C++ -*-===//
//
// Concatenation, pieces along a dimension and elementwise reduction of host
// tensors: what collectives and host transfers are made of.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_TENSOROPS_H
#define SPMD_RUNTIME_TENSOROPS_H

#include "runtime/exec/HostBuffer.h"
#include "sharding/TensorSharding.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace spmd::runtime {

/// x and y with their bits combined by & (`And`) or |.
template <bool And, typename T> T bitwise(T x, T y) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "f32 or f64");
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  U a, b;
  std::memcpy(&a, &x, sizeof a);
  std::memcpy(&b, &y, sizeof b);
  a = And ? a & b : a | b;
  std::memcpy(&x, &a, sizeof a);
  return x;
}

/// arith.maximumf and arith.minimumf (LLVM's maximum and minimum): NaN
/// where either is NaN, and -0.0 below +0.0, whichever comes first.
template <typename T> T maximumF(T x, T y) {
  if (std::isnan(x) || std::isnan(y))
    return NAN;
  // Equal values have equal bits but for +0 and -0, whose AND is +0
  // (integer ops and selects: the loops around it vectorise).
  return x == y ? bitwise<true>(x, y) : x > y ? x : y;
}
template <typename T> T minimumF(T x, T y) {
  if (std::isnan(x) || std::isnan(y))
    return NAN;
  return x == y ? bitwise<false>(x, y) : x < y ? x : y;
}

/// `a` and `b` combined as ReductionKind `c` says: by the kernels' folds
/// and by the collectives alike.
template <ReductionKind c, typename T> T combine(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (c) { // a constant: the branch folds away
    case ReductionKind::Sum:
      return a + b;
    case ReductionKind::Max:
      return maximumF(a, b);
    case ReductionKind::Min:
      return minimumF(a, b);
    case ReductionKind::MaxNum:
      return std::fmax(a, b);
    case ReductionKind::MinNum:
      return std::fmin(a, b);
    case ReductionKind::Prod:
      return a * b;
    }
  } else {
    switch (c) {
    case ReductionKind::Sum:
      return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
    case ReductionKind::Max:
    case ReductionKind::MaxNum:
      return std::max(a, b);
    case ReductionKind::Min:
    case ReductionKind::MinNum:
      return std::min(a, b);
    case ReductionKind::Prod: {
      // Wraps; narrow types multiply as unsigned int, not promoted int
      // (whose overflow is undefined).
      using U = std::make_unsigned_t<T>;
      using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
      return T(U(W(U(a)) * W(U(b))));
    }
    }
  }
  return a;
}

/// Calls `body(index)` for every index of `shape` without its last `inner`
/// dimensions, the last of them fastest (nothing if any size is 0): the
/// loop over rows of the kernels that move whole rows.
template <typename Body>
void forEachOuterIndex(llvm::ArrayRef<int64_t> shape, size_t inner,
                       Body body) {
  for (int64_t s : shape)
    if (s == 0)
      return;
  size_t outer = shape.size() - std::min(inner, shape.size());
  std::vector<int64_t> idx(outer, 0);
  while (true) {
    body(llvm::ArrayRef<int64_t>(idx));
    int64_t d = int64_t(outer) - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// Copies the box [offsets, offsets + sizes) of `from` into `to` at
/// `toOffsets` (both row-major, same element type).
void copyBox(const HostBuffer &from, llvm::ArrayRef<int64_t> offsets,
             llvm::ArrayRef<int64_t> sizes, HostBuffer &to,
             llvm::ArrayRef<int64_t> toOffsets);
/// The same from the row-major data of a `fromShape` tensor of `to`'s
/// element type (a file mapped in memory, say).
void copyBox(const uint8_t *from, llvm::ArrayRef<int64_t> fromShape,
             llvm::ArrayRef<int64_t> offsets, llvm::ArrayRef<int64_t> sizes,
             HostBuffer &to, llvm::ArrayRef<int64_t> toOffsets);

/// Piece `k` of `size` elements along `dim` (zeros past the end).
TensorRef piece(const HostBuffer &t, int64_t dim, int64_t k, int64_t size);
/// The concatenation of `parts` along `dim`.
TensorRef concat(llvm::ArrayRef<TensorRef> parts, int64_t dim);
/// Copies element 0 of `t` to all its elements.
void broadcastFirst(HostBuffer &t);
/// The first `size` elements along `dim`.
TensorRef truncate(const HostBuffer &t, int64_t dim, int64_t size);
/// The elementwise reduction of `parts`, in order.
TensorRef reduce(llvm::ArrayRef<TensorRef> parts, ReductionKind kind);
/// `count` elements of `tensor` (row-major) from element `begin`.
struct ElementSpan {
  const HostBuffer *tensor;
  int64_t begin;
};
/// The elementwise reduction of `parts` (in order) into `count` elements of
/// `out` from `outBegin`; `out` may be the first part, at the same place.
void reduceElements(llvm::ArrayRef<ElementSpan> parts, ReductionKind kind,
                    HostBuffer &out, int64_t outBegin, int64_t count);
/// Elements [begin, end) (row-major) of the reduction of `parts`, into `out`.
void reduceInto(llvm::ArrayRef<TensorRef> parts, ReductionKind kind,
                HostBuffer &out, int64_t begin, int64_t end);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_TENSOROPS_H
