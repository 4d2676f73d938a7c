//===- ShardingGrid.cpp - A sharding drawn as a grid of devices -----------===//

#include "sharding/ShardingGrid.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>

namespace spmd {

llvm::Expected<std::string> drawShardingGrid(const ShardLayout &layout) {
  llvm::ArrayRef<int64_t> shape = layout.globalShape();
  if (shape.empty() || shape.size() > 2)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("only 1-D and 2-D tensors are drawn; this one has {0} "
                      "dimensions",
                      shape.size()));
  int64_t rows = shape.size() == 2 ? layout.numShards(0) : 1;
  int64_t cols = layout.numShards(shape.size() - 1);
  // The devices holding each block, by block coordinates.
  std::map<std::pair<int64_t, int64_t>, std::string> labels;
  size_t width = 4;
  for (int64_t device = 0; device < layout.mesh().numDevices(); ++device) {
    llvm::SmallVector<int64_t> index = layout.shardIndex(device);
    std::string &label =
        labels[{shape.size() == 2 ? index[0] : 0, index.back()}];
    label += (label.empty() ? "" : ",") + std::to_string(device);
    width = std::max(width, label.size() + 2);
  }
  std::string rule = "+";
  for (int64_t c = 0; c < cols; ++c)
    rule += std::string(width, '-') + "+";
  std::string out = rule + "\n";
  for (int64_t r = 0; r < rows; ++r) {
    out += "|";
    for (int64_t c = 0; c < cols; ++c) {
      const std::string &label = labels[{r, c}];
      size_t left = (width - label.size()) / 2;
      out += std::string(left, ' ') + label +
             std::string(width - label.size() - left, ' ') + "|";
    }
    out += "\n" + rule + "\n";
  }
  return out;
}

} // namespace spmd
