//===- ShardState.h - The layout a tensor has on a mesh ---------*- C++ -*-===//
//
// A sharding with its axis names resolved on one mesh: the axes each
// dimension is split over (major to minor) and the axes the value is a
// pending reduction over. What the partitioner tracks for every value and
// what the reshard planner moves between.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_SHARDING_SHARDSTATE_H
#define SPMD_SHARDING_SHARDSTATE_H

#include "sharding/TensorSharding.h"

#include <string>
#include <vector>

namespace spmd {

/// The layout of a tensor: axes per dimension (major to minor) and the axes
/// it is a pending reduction over.
struct ShardState {
  std::vector<llvm::SmallVector<AxisIndex, 2>> dims;
  llvm::SmallVector<AxisIndex, 2> partial;
  ReductionKind reduction = ReductionKind::Sum;

  /// Pending axes are a set: their order does not change the value.
  bool operator==(const ShardState &o) const {
    return dims == o.dims && sortedPartial() == o.sortedPartial() &&
           (partial.empty() || reduction == o.reduction);
  }
  llvm::SmallVector<AxisIndex, 2> sortedPartial() const {
    llvm::SmallVector<AxisIndex, 2> axes = partial;
    llvm::sort(axes);
    return axes;
  }
  std::string key() const;
  /// Appends the layout to `key` as integers, each list preceded by its
  /// length so that the encoding is unambiguous (keys of caches).
  void appendKey(std::vector<int64_t> &key) const;
};

/// The local (per-device, padded) shape of a tensor of `globalShape` in
/// `state`.
std::vector<int64_t> localShape(const DeviceMesh &mesh,
                                llvm::ArrayRef<int64_t> globalShape,
                                const ShardState &state);

/// The valid [start, end) of each dimension of the block a device holds in
/// `state`, the device given by its coordinate along every mesh axis
/// (`coords[axis]`; only the axes `state` names are read). Blocks past the
/// end of an uneven dimension are empty.
std::vector<std::pair<int64_t, int64_t>>
blockBounds(const DeviceMesh &mesh, llvm::ArrayRef<int64_t> globalShape,
            const ShardState &state, llvm::ArrayRef<int64_t> coords);

/// Resolves a sharding's axis names (open flags and priorities do not
/// matter to layouts).
llvm::Expected<ShardState> toState(const DeviceMesh &mesh,
                                   const TensorSharding &sharding);

/// `state` as a sharding of mesh `meshName`, every dimension closed.
TensorSharding toSharding(const DeviceMesh &mesh, llvm::StringRef meshName,
                          const ShardState &state);

/// `state` as the user writes shardings (`<@mesh, [{"x"}, {}],
/// partial={"y"}>`), for diagnostics.
std::string describe(const DeviceMesh &mesh, llvm::StringRef meshName,
                     const ShardState &state);

} // namespace spmd

#endif // SPMD_SHARDING_SHARDSTATE_H
