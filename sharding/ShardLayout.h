//===- ShardLayout.h - Which device holds which part ------------*- C++ -*-===//
//
// A TensorSharding resolved against a mesh and a global shape. A dimension
// of size d split over axes of total size n gives every device a shard of
// ceil(d / n) elements (the local, padded size); the last shards may hold
// fewer valid elements, or none.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_SHARDING_SHARDLAYOUT_H
#define SPMD_SHARDING_SHARDLAYOUT_H

#include "sharding/TensorSharding.h"

namespace spmd {

/// The part of one dimension a device holds.
struct DimSlice {
  int64_t offset; // global index of the first element of the shard
  int64_t size;   // padded local size, ceil(d / n)
  int64_t valid;  // elements of the shard inside the tensor (<= size)

  bool operator==(const DimSlice &o) const {
    return offset == o.offset && size == o.size && valid == o.valid;
  }
};

class ShardLayout {
public:
  static llvm::Expected<ShardLayout> get(const TensorSharding &sharding,
                                         const DeviceMesh &mesh,
                                         llvm::ArrayRef<int64_t> globalShape);

  const DeviceMesh &mesh() const { return mesh_; }
  llvm::ArrayRef<int64_t> globalShape() const { return globalShape_; }
  /// Mesh axes splitting `dim`, major to minor.
  llvm::ArrayRef<AxisIndex> dimAxes(unsigned dim) const {
    return dimAxes_[dim];
  }
  llvm::ArrayRef<AxisIndex> partialAxes() const { return partialAxes_; }

  int64_t numShards(unsigned dim) const;
  /// Per-device local shape (padded); the same on every device.
  llvm::SmallVector<int64_t> localShape() const;
  /// Shard coordinates of `device`, one per dimension.
  llvm::SmallVector<int64_t> shardIndex(int64_t device) const;
  /// What `device` holds, per dimension.
  llvm::SmallVector<DimSlice> sliceOf(int64_t device) const;
  /// Devices holding shard `index` (replicas, and partial summands when
  /// the sharding is partial), in increasing order.
  llvm::SmallVector<int64_t>
  devicesHolding(llvm::ArrayRef<int64_t> index) const;
  /// How many devices hold each shard.
  int64_t replication() const;

private:
  ShardLayout(DeviceMesh mesh) : mesh_(std::move(mesh)) {}

  DeviceMesh mesh_;
  std::vector<int64_t> globalShape_;
  std::vector<llvm::SmallVector<AxisIndex>> dimAxes_;
  llvm::SmallVector<AxisIndex> partialAxes_;
};

} // namespace spmd

#endif // SPMD_SHARDING_SHARDLAYOUT_H
