//===- Meshes.cpp - Meshes, the global mesh, runtime queries --------------===//

#include "Internal.h"

#include "mesh/HybridDeviceMesh.h"
#include "mesh/MeshConfig.h"
#include "runtime/devices/Devices.h"
#include "runtime/comm/MpiWorld.h"

#include "fmt/format.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

namespace spmd {

absl::Status detail::toStatus(llvm::Error error, absl::StatusCode code) {
  if (!error)
    return absl::OkStatus();
  return absl::Status(code, llvm::toString(std::move(error)));
}

/// Default axis names: "a0", "a1", ... as many as the shape has axes.
static std::vector<std::string> defaultNames(std::vector<std::string> names,
                                             size_t rank) {
  if (!names.empty())
    return names;
  for (size_t i = 0; i < rank; ++i)
    names.push_back(fmt::format("a{}", i));
  return names;
}

Mesh::Mesh(std::vector<int64_t> device_ids, std::vector<int64_t> mesh_shape,
           std::vector<std::string> axis_names)
    : device_ids_(std::move(device_ids)), mesh_shape_(std::move(mesh_shape)),
      dcn_shape_(mesh_shape_.size(), 1),
      axis_names_(defaultNames(std::move(axis_names), mesh_shape_.size())) {
  if (axis_names_.size() != mesh_shape_.size()) {
    status_ = absl::InvalidArgumentError(
        fmt::format("the mesh has {} axes but {} axis names",
                    mesh_shape_.size(), axis_names_.size()));
    return;
  }
  status_ = detail::toStatus(
      DeviceMesh::verify(axis_names_, mesh_shape_, device_ids_));
  if (status_.ok() && int64_t(device_ids_.size()) != size())
    status_ = absl::InvalidArgumentError(fmt::format(
        "{} device ids for a mesh of {} devices", device_ids_.size(), size()));
}

absl::StatusOr<Mesh> Mesh::create(std::vector<int64_t> device_ids,
                                  std::vector<int64_t> mesh_shape,
                                  std::vector<std::string> axis_names) {
  Mesh mesh(std::move(device_ids), std::move(mesh_shape),
            std::move(axis_names));
  if (!mesh.status().ok())
    return mesh.status();
  return mesh;
}

std::vector<std::pair<std::string, int64_t>> Mesh::shape() const {
  std::vector<std::pair<std::string, int64_t>> axes;
  for (size_t i = 0; i < mesh_shape_.size() && i < axis_names_.size(); ++i)
    axes.emplace_back(axis_names_[i], mesh_shape_[i]);
  return axes;
}

int64_t Mesh::size() const {
  int64_t n = 1;
  for (int64_t s : mesh_shape_)
    n = s > 0 && n <= DeviceMesh::kMaxDevices ? n * s : 0;
  return n;
}

absl::StatusOr<DeviceMesh> detail::deviceMesh(const Mesh &mesh) {
  if (!mesh.status().ok())
    return mesh.status();
  llvm::Expected<DeviceMesh> made = DeviceMesh::create(
      mesh.axis_names(), mesh.mesh_shape(), mesh.get_logical_mesh());
  if (!made)
    return toStatus(made.takeError());
  // The devices of this process: more than it may run is an error here,
  // not a failure to start threads later; the same limit as every tool's.
  llvm::Expected<int64_t> limit = runtime::maxLocalDevices();
  if (!limit)
    return toStatus(limit.takeError());
  int64_t local = *limit;
  if (made->numDevices() > local * world_size())
    return absl::InvalidArgumentError(fmt::format(
        "the mesh has {} devices but {} exist ({} per process, {} "
        "processes)",
        made->numDevices(), local * world_size(), local, world_size()));
  return std::move(*made);
}

HybridMesh::HybridMesh(std::vector<int64_t> ici_mesh_shape,
                       std::vector<int64_t> dcn_mesh_shape,
                       std::vector<std::string> axis_names) {
  ici_shape_ = ici_mesh_shape;
  axis_names_ = defaultNames(std::move(axis_names), ici_mesh_shape.size());
  llvm::Expected<HybridDeviceMesh> hybrid = HybridDeviceMesh::create(
      axis_names_, std::move(ici_mesh_shape), std::move(dcn_mesh_shape));
  if (!hybrid) {
    status_ = detail::toStatus(hybrid.takeError());
    return;
  }
  const DeviceMesh &mesh = hybrid->mesh();
  mesh_shape_.assign(mesh.shape().begin(), mesh.shape().end());
  device_ids_ = mesh.deviceIds();
  dcn_shape_.assign(hybrid->dcnShape().begin(), hybrid->dcnShape().end());
}

absl::StatusOr<HybridMesh> HybridMesh::fromFile(const std::string &path) {
  llvm::Expected<HybridDeviceMesh> hybrid =
      loadMeshConfigFile(path, /*expectedProcesses=*/world_size());
  if (!hybrid)
    return detail::toStatus(hybrid.takeError());
  HybridMesh mesh;
  const DeviceMesh &m = hybrid->mesh();
  mesh.axis_names_.assign(m.axisNames().begin(), m.axisNames().end());
  mesh.mesh_shape_.assign(m.shape().begin(), m.shape().end());
  mesh.device_ids_ = m.deviceIds();
  mesh.ici_shape_.assign(hybrid->iciShape().begin(), hybrid->iciShape().end());
  mesh.dcn_shape_.assign(hybrid->dcnShape().begin(), hybrid->dcnShape().end());
  return mesh;
}

static std::mutex globalMeshMutex;
static std::optional<Mesh> globalMesh;

void set_global_mesh(const Mesh &mesh) {
  std::lock_guard<std::mutex> lock(globalMeshMutex);
  globalMesh = mesh;
}

std::optional<Mesh> get_global_mesh() {
  std::lock_guard<std::mutex> lock(globalMeshMutex);
  return globalMesh;
}

// Under mpirun the processes are MPI's (initialised on first use); each
// runs up to addressable_device_count() devices.
int64_t global_runtime_device_count() {
  return addressable_device_count() * world_size();
}
int64_t addressable_device_count() {
  // An invalid SPMD_MAX_LOCAL_DEVICES is reported by every use of a mesh;
  // the count alone has no way to say it.
  llvm::Expected<int64_t> limit = runtime::maxLocalDevices();
  if (!limit) {
    llvm::consumeError(limit.takeError());
    return runtime::kDefaultMaxLocalDevices;
  }
  return *limit;
}
int64_t world_size() {
  runtime::MpiWorld *world = runtime::MpiWorld::get();
  return world ? world->size() : 1;
}
int64_t process_index() {
  runtime::MpiWorld *world = runtime::MpiWorld::get();
  return world ? world->rank() : 0;
}
int64_t local_process_count() {
  // Open MPI tells each process how many it started on this host.
  if (const char *local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"))
    return std::max(1, std::atoi(local));
  return 1;
}

absl::StatusOr<TensorSharding> detail::shardingOf(const DeviceMesh &mesh,
                                                  std::string meshName,
                                                  const PartitionSpec &spec,
                                                  unsigned rank) {
  DimSpecs dims;
  for (const SpecEntry &entry : spec) {
    DimSpec dim;
    dim.axes.assign(entry.axes().begin(), entry.axes().end());
    dims.push_back(std::move(dim));
  }
  llvm::Expected<TensorSharding> sharding = TensorSharding::fromPartitionSpec(
      mesh, std::move(meshName), dims, rank);
  if (!sharding)
    return toStatus(sharding.takeError());
  return std::move(*sharding);
}

} // namespace spmd
