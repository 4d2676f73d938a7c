//===- Halo.h - Windows over split dimensions -------------------*- C++ -*-===//
//
// A convolution or pooling reads its input through a window:
// `in[stride * oh + kh + offset]` (a static slice too, with no kh, and a
// pad, whose reads outside the input give its padding value); ops' rules
// list their windows (WindowedDim, ir/ShardingInterface.h). When the
// output's spatial dimension `oh` is split over devices, and the input's
// with it, each device needs a few rows of its neighbours (the halo). They come by
// collective_permute (one from the left, one from the right), are joined to the
// local shard, and the window the device's outputs read is cut out of that.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PARTITIONER_HALO_H
#define SPMD_PARTITIONER_HALO_H

#include "ir/Namespaces.h"
#include "partitioner/Partitioner.h"

namespace mlir::spmd {

/// How much each device reads past its shard when the factor (of size
/// `factorSize`) and the input dimension (of size `inputSize`) are both split
/// `n` ways: `left` and `right` halo lengths and the `window` length. None
/// when a halo would reach past the neighbouring device.
struct HaloShape {
  int64_t left, right, window;
  int64_t localIn, localOut, inputSize;
};
std::optional<HaloShape> haloShape(const WindowedDim &dim, int64_t factorSize,
                                   int64_t inputSize, int64_t n);

/// The window the device's outputs read, from its shard `local` (split over
/// `axes` along `dim.dim`): halos exchanged, joined, and cut.
Value emitHaloWindow(OpBuilder &b, Location loc, Value local,
                     const WindowedDim &dim, const HaloShape &shape,
                     const MeshInfo &mesh, ArrayRef<AxisIndex> axes);

/// `consumer`'s window read through `producer`'s, a window of stride 1 and
/// no extent on the same dimension (a pad, a unit-stride slice): the same
/// window on the producer's operand, shifted by the producer's offset, with
/// the producer's fill outside it. None when the consumer has a fill of its
/// own.
std::optional<WindowedDim> readThrough(const WindowedDim &consumer,
                                       const WindowedDim &producer);

/// `window` (stride 1, no extent) on a dimension of `local` that no device
/// splits: its `length` elements from the window's offset, the fill where
/// they lie outside `local`.
Value emitWholeWindow(OpBuilder &b, Location loc, Value local,
                      const WindowedDim &window, int64_t length);

} // namespace mlir::spmd

#endif // SPMD_PARTITIONER_HALO_H
