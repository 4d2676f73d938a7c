//===- ShardState.cpp - The layout a tensor has on a mesh -----------------===//

#include "sharding/ShardState.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace spmd;
using llvm::ArrayRef;

void ShardState::appendKey(std::vector<int64_t> &key) const {
  for (const AxisList &dim : dims) {
    key.push_back(dim.size());
    key.insert(key.end(), dim.begin(), dim.end());
  }
  llvm::SmallVector<AxisIndex, 2> sorted = sortedPartial();
  key.push_back(sorted.size());
  key.insert(key.end(), sorted.begin(), sorted.end());
  key.push_back(int64_t(reduction));
}

std::string ShardState::key() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const AxisList &dim : dims) {
    os << '[';
    llvm::interleaveComma(dim, os);
    os << ']';
  }
  os << 'p';
  llvm::interleaveComma(sortedPartial(), os);
  if (!partial.empty() && reduction != ReductionKind::Sum)
    os << stringifyReduction(reduction);
  return text;
}

std::vector<int64_t> spmd::localShape(const DeviceMesh &mesh,
                                      ArrayRef<int64_t> globalShape,
                                      const ShardState &state) {
  assert(globalShape.size() == state.dims.size() &&
         "a layout of the tensor's rank");
  std::vector<int64_t> shape;
  for (auto [size, axes] : llvm::zip_equal(globalShape, state.dims))
    shape.push_back(llvm::divideCeil(size, mesh.groupSize(axes)));
  return shape;
}

std::vector<std::pair<int64_t, int64_t>>
spmd::blockBounds(const DeviceMesh &mesh, ArrayRef<int64_t> globalShape,
                  const ShardState &state, ArrayRef<int64_t> coords) {
  assert(globalShape.size() == state.dims.size() &&
         coords.size() == mesh.rank() &&
         "a layout of the tensor's rank, a coordinate per mesh axis");
  std::vector<std::pair<int64_t, int64_t>> bounds;
  for (auto [size, axes] : llvm::zip_equal(globalShape, state.dims)) {
    int64_t index = 0;
    for (AxisIndex axis : axes)
      index = index * mesh.axisSize(axis) + coords[axis];
    int64_t block = llvm::divideCeil(size, mesh.groupSize(axes));
    int64_t start = std::min(index * block, size);
    bounds.push_back({start, std::min(start + block, size)});
  }
  return bounds;
}

llvm::Expected<ShardState> spmd::toState(const DeviceMesh &mesh,
                                         const TensorSharding &sharding) {
  if (llvm::Error err = sharding.verify(mesh, sharding.rank()))
    return std::move(err);
  ShardState state;
  for (const DimSharding &dim : sharding.dims) {
    AxisList axes;
    for (AxisIndex a : llvm::cantFail(mesh.resolveAxes(dim.axes)))
      axes.push_back(a);
    state.dims.push_back(std::move(axes));
  }
  for (AxisIndex a : llvm::cantFail(mesh.resolveAxes(sharding.partial)))
    state.partial.push_back(a);
  state.reduction = sharding.partialKind;
  return state;
}

TensorSharding spmd::toSharding(const DeviceMesh &mesh,
                               llvm::StringRef meshName,
                               const ShardState &state) {
  TensorSharding sharding;
  sharding.meshName = meshName.str();
  auto names = [&](ArrayRef<AxisIndex> axes) {
    std::vector<std::string> result;
    for (AxisIndex a : axes)
      result.push_back(mesh.axisName(a).str());
    return result;
  };
  for (const AxisList &dim : state.dims)
    sharding.dims.push_back(DimSharding{names(dim)});
  sharding.partial = names(state.partial);
  sharding.partialKind = state.reduction;
  return sharding;
}

std::string spmd::describe(const DeviceMesh &mesh, llvm::StringRef meshName,
                           const ShardState &state) {
  return toSharding(mesh, meshName, state).str();
}

