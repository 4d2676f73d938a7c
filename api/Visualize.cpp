//===- Visualize.cpp - The device grid of a sharding ----------------------===//

#include "Internal.h"

#include "sharding/ShardingGrid.h"

namespace spmd {

static absl::StatusOr<std::string> draw(const ShardLayout &layout) {
  llvm::Expected<std::string> grid = drawShardingGrid(layout);
  if (!grid)
    return detail::toStatus(grid.takeError());
  return std::move(*grid);
}

absl::StatusOr<std::string> visualize_sharding(const ShardedTensor &tensor) {
  if (tensor.shape().empty() && tensor.sharding().empty())
    return absl::FailedPreconditionError("the tensor holds nothing");
  const detail::ShardedStorage &storage = detail::ShardedStorage::of(tensor);
  llvm::Expected<ShardLayout> layout =
      ShardLayout::get(storage.sharding, storage.mesh, storage.shape);
  if (!layout)
    return detail::toStatus(layout.takeError(), absl::StatusCode::kInternal);
  return draw(*layout);
}

absl::StatusOr<std::string>
visualize_sharding(const std::vector<int64_t> &shape, const Mesh &mesh,
                   const PartitionSpec &spec) {
  absl::StatusOr<DeviceMesh> deviceMesh = detail::deviceMesh(mesh);
  if (!deviceMesh.ok())
    return deviceMesh.status();
  absl::StatusOr<TensorSharding> sharding =
      detail::shardingOf(*deviceMesh, "mesh", spec, shape.size());
  if (!sharding.ok())
    return sharding.status();
  llvm::Expected<ShardLayout> layout =
      ShardLayout::get(*sharding, *deviceMesh, shape);
  if (!layout)
    return detail::toStatus(layout.takeError());
  return draw(*layout);
}

} // namespace spmd
