//===- DeviceMesh.h - Logical device meshes ---------------------*- C++ -*-===//
//
// A mesh names the axes of an N-dimensional array of devices. Device ids are
// laid out row-major over the mesh shape (the `Mesh(device_ids, mesh_shape,
// axis_names)` semantics of torch_xla and JAX).
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_MESH_DEVICEMESH_H
#define SPMD_MESH_DEVICEMESH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace spmd {

/// Index of an axis inside its mesh.
using AxisIndex = unsigned;
/// Axes in order, e.g. the axes sharding one dimension (major to minor).
using AxisList = llvm::SmallVector<AxisIndex, 2>;

class DeviceMesh {
public:
  /// Larger meshes are rejected: their device tables would not fit memory,
  /// and no real system is that large.
  static constexpr int64_t kMaxDevices = int64_t(1) << 24;

  /// Checks the mesh invariants: unique non-empty names, sizes >= 1, and
  /// `deviceIds` (empty means iota) a permutation of 0..N-1.
  static llvm::Error verify(llvm::ArrayRef<std::string> axisNames,
                            llvm::ArrayRef<int64_t> shape,
                            llvm::ArrayRef<int64_t> deviceIds);

  /// Builds a mesh, or returns why the description is invalid.
  static llvm::Expected<DeviceMesh> create(std::vector<std::string> axisNames,
                                     std::vector<int64_t> shape,
                                     std::vector<int64_t> deviceIds = {});

  unsigned rank() const { return shape_.size(); }
  int64_t numDevices() const { return numDevices_; }
  llvm::ArrayRef<int64_t> shape() const { return shape_; }
  llvm::ArrayRef<std::string> axisNames() const { return axisNames_; }
  /// Device ids in logical (row-major) order (materialised: O(devices)).
  std::vector<int64_t> deviceIds() const;
  /// The device id at logical position `pos`.
  int64_t deviceIdAt(int64_t pos) const {
    return deviceIds_.empty() ? pos : deviceIds_[pos];
  }
  int64_t axisSize(AxisIndex axis) const { return shape_[axis]; }
  llvm::StringRef axisName(AxisIndex axis) const { return axisNames_[axis]; }
  bool hasIotaDeviceIds() const { return deviceIds_.empty(); }

  std::optional<AxisIndex> axisIndex(llvm::StringRef name) const;
  /// Resolves names to indices; fails naming the first unknown axis.
  llvm::Expected<llvm::SmallVector<AxisIndex>>
  resolveAxes(llvm::ArrayRef<std::string> names) const;

  /// The device at logical coordinates `coords`.
  int64_t deviceAt(llvm::ArrayRef<int64_t> coords) const;
  /// The logical coordinates of `device`.
  llvm::SmallVector<int64_t> coordsOf(int64_t device) const;

  /// Number of devices in a group spanned by `axes`.
  int64_t groupSize(llvm::ArrayRef<AxisIndex> axes) const;
  /// Position of `device` inside its group over `axes`, linearised with the
  /// first listed axis major.
  int64_t indexInGroup(int64_t device, llvm::ArrayRef<AxisIndex> axes) const;
  /// The group over `axes` containing `device`, ordered by `indexInGroup`.
  llvm::SmallVector<int64_t> groupOf(int64_t device,
                                     llvm::ArrayRef<AxisIndex> axes) const;
  /// All groups over `axes`: the devices that take part in one collective
  /// over those axes. Groups are ordered by the coordinates of the remaining
  /// axes (row-major); each group by `indexInGroup`.
  llvm::SmallVector<llvm::SmallVector<int64_t>>
  groups(llvm::ArrayRef<AxisIndex> axes) const;

  /// The sub-mesh over `axes` (in the order given) that contains `device`.
  struct SubMesh;
  SubMesh subMesh(int64_t device, llvm::ArrayRef<AxisIndex> axes) const;

  bool operator==(const DeviceMesh &other) const;
  bool operator!=(const DeviceMesh &other) const { return !(*this == other); }

  /// `<["data"=2, "model"=4], device_ids=[...]>`, the textual mesh syntax.
  std::string str() const;

private:
  DeviceMesh() = default;
  int64_t linearPosition(int64_t device) const {
    return positionOf_.empty() ? device : positionOf_[device];
  }

  std::vector<std::string> axisNames_;
  std::vector<int64_t> shape_;
  int64_t numDevices_ = 0;
  // Both empty for iota ids (the usual case), so that a mesh costs nothing
  // per device: compile time must not depend on the device count.
  std::vector<int64_t> deviceIds_;  // logical position -> device id
  std::vector<int64_t> positionOf_; // device id -> logical position
};

/// A slice of a mesh: some of its axes, with the global ids of the devices
/// it holds in row-major order over `shape`.
struct DeviceMesh::SubMesh {
  std::vector<std::string> axisNames;
  std::vector<int64_t> shape;
  llvm::SmallVector<int64_t> devices;
};

/// Row-major helpers shared by the mesh and sharding code. `product`
/// saturates at INT64_MAX (sizes from hostile input overflow).
int64_t product(llvm::ArrayRef<int64_t> values);
int64_t linearize(llvm::ArrayRef<int64_t> index, llvm::ArrayRef<int64_t> shape);
llvm::SmallVector<int64_t> delinearize(int64_t linear,
                                       llvm::ArrayRef<int64_t> shape);

} // namespace spmd

#endif // SPMD_MESH_DEVICEMESH_H
