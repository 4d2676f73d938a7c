//===- Visualize.cpp - The device grid of a sharding ----------------------===//
//
// As JAX's visualize_array_sharding: one box per block of a 1-D or 2-D
// tensor, labelled with the devices holding it.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "sharding/ShardLayout.h"

#include "fmt/format.h"

#include <map>

namespace spmd {

static absl::StatusOr<std::string> draw(const ShardLayout &layout) {
  llvm::ArrayRef<int64_t> shape = layout.globalShape();
  if (shape.empty() || shape.size() > 2)
    return absl::InvalidArgumentError(fmt::format(
        "only 1-D and 2-D tensors are drawn; this one has {} dimensions",
        shape.size()));
  int64_t rows = shape.size() == 2 ? layout.numShards(0) : 1;
  int64_t cols = layout.numShards(shape.size() - 1);
  // The devices holding each block, by block coordinates.
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> holders;
  for (int64_t device = 0; device < layout.mesh().numDevices(); ++device) {
    llvm::SmallVector<int64_t> index = layout.shardIndex(device);
    int64_t r = shape.size() == 2 ? index[0] : 0;
    holders[{r, index.back()}].push_back(device);
  }
  std::vector<std::vector<std::string>> labels(
      rows, std::vector<std::string>(cols));
  size_t width = 4;
  for (const auto &[block, devices] : holders) {
    std::string label = fmt::format("{}", fmt::join(devices, ","));
    width = std::max(width, label.size() + 2);
    labels[block.first][block.second] = std::move(label);
  }
  std::string rule = "+";
  for (int64_t c = 0; c < cols; ++c)
    rule += std::string(width, '-') + "+";
  std::string out = rule + "\n";
  for (int64_t r = 0; r < rows; ++r) {
    out += "|";
    for (int64_t c = 0; c < cols; ++c)
      out += fmt::format("{:^{}}|", labels[r][c], width);
    out += "\n" + rule + "\n";
  }
  return out;
}

absl::StatusOr<std::string> visualize_sharding(const ShardedTensor &tensor) {
  if (tensor.shape().empty() && tensor.sharding().empty())
    return absl::FailedPreconditionError("the tensor holds nothing");
  const detail::ShardedStorage &storage = detail::ShardedStorage::of(tensor);
  if (!storage.tensor.layout())
    return absl::InternalError("the tensor has no layout");
  return draw(*storage.tensor.layout());
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
