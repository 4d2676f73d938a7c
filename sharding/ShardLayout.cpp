//===- ShardLayout.cpp - Which device holds which part of a tensor --------===//

#include "sharding/ShardLayout.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace spmd;
using llvm::SmallVector;

llvm::Expected<ShardLayout> ShardLayout::get(const TensorSharding &sharding,
                                             const DeviceMesh &mesh,
                                             llvm::ArrayRef<int64_t> shape) {
  if (llvm::Error err = sharding.verify(mesh, shape.size()))
    return std::move(err);
  ShardLayout layout(mesh);
  layout.globalShape_.assign(shape.begin(), shape.end());
  for (const DimSharding &dim : sharding.dims)
    layout.dimAxes_.push_back(llvm::cantFail(mesh.resolveAxes(dim.axes)));
  layout.partialAxes_ = llvm::cantFail(mesh.resolveAxes(sharding.partial));
  return layout;
}

int64_t ShardLayout::numShards(unsigned dim) const {
  assert(dim < dimAxes_.size() && "a dimension of the tensor");
  return mesh_.groupSize(dimAxes_[dim]);
}

SmallVector<int64_t> ShardLayout::localShape() const {
  SmallVector<int64_t> shape;
  for (unsigned d = 0; d < globalShape_.size(); ++d)
    shape.push_back(llvm::divideCeil(globalShape_[d], numShards(d)));
  return shape;
}

SmallVector<int64_t> ShardLayout::shardIndex(int64_t device) const {
  SmallVector<int64_t> index;
  for (const auto &axes : dimAxes_)
    index.push_back(mesh_.indexInGroup(device, axes));
  return index;
}

SmallVector<DimSlice> ShardLayout::sliceOf(int64_t device) const {
  SmallVector<int64_t> index = shardIndex(device);
  SmallVector<int64_t> local = localShape();
  SmallVector<DimSlice> slices;
  for (unsigned d = 0; d < globalShape_.size(); ++d) {
    int64_t offset = index[d] * local[d];
    int64_t valid = std::clamp<int64_t>(globalShape_[d] - offset, 0, local[d]);
    slices.push_back({offset, local[d], valid});
  }
  return slices;
}

SmallVector<int64_t>
ShardLayout::devicesHolding(llvm::ArrayRef<int64_t> index) const {
  SmallVector<int64_t> devices;
  for (int64_t pos = 0; pos < mesh_.numDevices(); ++pos)
    if (llvm::equal(shardIndex(mesh_.deviceIdAt(pos)), index))
      devices.push_back(mesh_.deviceIdAt(pos));
  llvm::sort(devices);
  return devices;
}

int64_t ShardLayout::replication() const {
  int64_t shards = 1;
  for (unsigned d = 0; d < globalShape_.size(); ++d)
    shards *= numShards(d);
  return mesh_.numDevices() / shards;
}
