//===- DeviceMesh.cpp - Logical device meshes -----------------------------===//

#include "mesh/DeviceMesh.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>

using namespace spmd;
using llvm::ArrayRef;
using llvm::SmallVector;

int64_t spmd::product(ArrayRef<int64_t> values) {
  int64_t result = 1;
  for (int64_t v : values) {
    std::optional<int64_t> next = llvm::checkedMul(result, v);
    if (!next)
      return std::numeric_limits<int64_t>::max();
    result = *next;
  }
  return result;
}

int64_t spmd::linearize(ArrayRef<int64_t> index, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (auto [i, size] : llvm::zip_equal(index, shape))
    linear = linear * size + i;
  return linear;
}

SmallVector<int64_t> spmd::delinearize(int64_t linear,
                                       ArrayRef<int64_t> shape) {
  SmallVector<int64_t> index(shape.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
  return index;
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error DeviceMesh::verify(ArrayRef<std::string> axisNames,
                         ArrayRef<int64_t> shape, ArrayRef<int64_t> deviceIds) {
  if (axisNames.size() != shape.size())
    return makeError(llvm::formatv("mesh has {0} axis names but {1} sizes",
                                   axisNames.size(), shape.size()));
  llvm::StringSet<> seen;
  int64_t numDevices = 1;
  for (auto [name, size] : llvm::zip_equal(axisNames, shape)) {
    if (name.empty())
      return makeError("mesh axis names must be non-empty");
    if (!seen.insert(name).second)
      return makeError("mesh axis \"" + name + "\" is declared twice");
    if (size < 1)
      return makeError(llvm::formatv(
          "mesh axis \"{0}\" has size {1}; sizes must be >= 1", name, size));
    if (size > kMaxDevices / numDevices)
      return makeError(
          llvm::formatv("mesh has more than {0} devices", kMaxDevices));
    numDevices *= size;
  }
  if (deviceIds.empty())
    return llvm::Error::success();
  if (static_cast<int64_t>(deviceIds.size()) != numDevices)
    return makeError(
        llvm::formatv("device_ids has {0} entries but the mesh has {1} devices",
                      deviceIds.size(), numDevices));
  std::vector<bool> used(numDevices, false);
  for (int64_t id : deviceIds) {
    if (id < 0 || id >= numDevices)
      return makeError(llvm::formatv(
          "device_ids entry {0} is out of range [0, {1})", id, numDevices));
    if (used[id])
      return makeError(llvm::formatv(
          "device_ids is not a permutation: device {0} appears twice", id));
    used[id] = true;
  }
  return llvm::Error::success();
}

llvm::Expected<DeviceMesh> DeviceMesh::create(std::vector<std::string> axisNames,
                                  std::vector<int64_t> shape,
                                  std::vector<int64_t> deviceIds) {
  if (llvm::Error err = verify(axisNames, shape, deviceIds))
    return std::move(err);
  DeviceMesh mesh;
  int64_t numDevices = product(shape);
  mesh.axisNames_ = std::move(axisNames);
  mesh.shape_ = std::move(shape);
  mesh.numDevices_ = numDevices;
  bool iota = true;
  for (int64_t i = 0, e = deviceIds.size(); i < e && iota; ++i)
    iota = deviceIds[i] == i;
  if (iota)
    return mesh;
  mesh.deviceIds_ = std::move(deviceIds);
  mesh.positionOf_.resize(numDevices);
  for (int64_t pos = 0; pos < numDevices; ++pos)
    mesh.positionOf_[mesh.deviceIds_[pos]] = pos;
  return mesh;
}

std::vector<int64_t> DeviceMesh::deviceIds() const {
  std::vector<int64_t> ids(numDevices_);
  for (int64_t pos = 0; pos < numDevices_; ++pos)
    ids[pos] = deviceIdAt(pos);
  return ids;
}

std::optional<AxisIndex> DeviceMesh::axisIndex(llvm::StringRef name) const {
  for (AxisIndex i = 0; i < rank(); ++i)
    if (axisNames_[i] == name)
      return i;
  return std::nullopt;
}

llvm::Expected<SmallVector<AxisIndex>>
DeviceMesh::resolveAxes(ArrayRef<std::string> names) const {
  SmallVector<AxisIndex> axes;
  for (const std::string &name : names) {
    std::optional<AxisIndex> axis = axisIndex(name);
    if (!axis)
      return makeError("mesh has no axis named \"" + name + "\"");
    axes.push_back(*axis);
  }
  return axes;
}

/// Whether every one of `axes` is an axis of `mesh`.
[[maybe_unused]] static bool hasAxes(const DeviceMesh &mesh,
                                     ArrayRef<AxisIndex> axes) {
  return llvm::all_of(axes, [&](AxisIndex axis) { return axis < mesh.rank(); });
}

int64_t DeviceMesh::deviceAt(ArrayRef<int64_t> coords) const {
  assert(coords.size() == rank() && "a coordinate per axis");
  return deviceIdAt(linearize(coords, shape_));
}

SmallVector<int64_t> DeviceMesh::coordsOf(int64_t device) const {
  return delinearize(linearPosition(device), shape_);
}

int64_t DeviceMesh::groupSize(ArrayRef<AxisIndex> axes) const {
  assert(hasAxes(*this, axes) && "axes of this mesh");
  int64_t size = 1;
  for (AxisIndex axis : axes)
    size *= shape_[axis];
  return size;
}

int64_t DeviceMesh::indexInGroup(int64_t device, ArrayRef<AxisIndex> axes) const {
  assert(hasAxes(*this, axes) && "axes of this mesh");
  SmallVector<int64_t> coords = coordsOf(device);
  int64_t index = 0;
  for (AxisIndex axis : axes)
    index = index * shape_[axis] + coords[axis];
  return index;
}

SmallVector<int64_t> DeviceMesh::groupOf(int64_t device,
                                   ArrayRef<AxisIndex> axes) const {
  assert(hasAxes(*this, axes) && "axes of this mesh");
  // Every run computes the groups of its collectives on each device, so
  // members are stepped to by strides (a group may hold thousands).
  SmallVector<int64_t> strides(rank());
  for (int64_t axis = int64_t(rank()) - 1, stride = 1; axis >= 0; --axis) {
    strides[axis] = stride;
    stride *= shape_[axis];
  }
  SmallVector<int64_t> coords = coordsOf(device);
  int64_t position = linearPosition(device);
  for (AxisIndex axis : axes)
    position -= coords[axis] * strides[axis];
  // Row-major over `axes`: the last one varies fastest.
  SmallVector<int64_t> inGroup(axes.size(), 0);
  SmallVector<int64_t> group;
  for (int64_t i = 0, e = groupSize(axes); i < e; ++i) {
    group.push_back(deviceIdAt(position));
    for (int64_t k = axes.size() - 1; k >= 0; --k) {
      AxisIndex axis = axes[k];
      if (++inGroup[k] < shape_[axis]) {
        position += strides[axis];
        break;
      }
      position -= (shape_[axis] - 1) * strides[axis];
      inGroup[k] = 0;
    }
  }
  return group;
}

SmallVector<SmallVector<int64_t>> DeviceMesh::groups(ArrayRef<AxisIndex> axes) const {
  SmallVector<SmallVector<int64_t>> result;
  // Walk logical positions in row-major order and start a group whenever we
  // meet a device whose coordinates along `axes` are all zero.
  for (int64_t pos = 0; pos < numDevices(); ++pos) {
    SmallVector<int64_t> coords = delinearize(pos, shape_);
    if (llvm::all_of(axes, [&](AxisIndex a) { return coords[a] == 0; }))
      result.push_back(groupOf(deviceIdAt(pos), axes));
  }
  return result;
}

DeviceMesh::SubMesh DeviceMesh::subMesh(int64_t device, ArrayRef<AxisIndex> axes) const {
  SubMesh sub;
  for (AxisIndex axis : axes) {
    sub.axisNames.push_back(axisNames_[axis]);
    sub.shape.push_back(shape_[axis]);
  }
  sub.devices = groupOf(device, axes);
  return sub;
}

bool DeviceMesh::operator==(const DeviceMesh &other) const {
  return axisNames_ == other.axisNames_ && shape_ == other.shape_ &&
         deviceIds_ == other.deviceIds_;
}

std::string DeviceMesh::str() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "<[";
  for (AxisIndex i = 0; i < rank(); ++i) {
    if (i)
      os << ", ";
    os << '"' << axisNames_[i] << "\"=" << shape_[i];
  }
  os << "]";
  if (!hasIotaDeviceIds()) {
    os << ", device_ids=[";
    llvm::interleaveComma(deviceIds_, os);
    os << "]";
  }
  os << ">";
  return text;
}
