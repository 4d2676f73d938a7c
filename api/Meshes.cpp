//===- Meshes.cpp - Meshes, the global mesh, runtime queries --------------===//

#include "Internal.h"

#include "mesh/HybridDeviceMesh.h"
#include "mesh/MeshConfig.h"
#include "runtime/devices/Devices.h"
#include "runtime/comm/MpiWorld.h"

#include "fmt/format.h"
#include "support/Machine.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <numeric>

#include <unistd.h>

namespace spmd {

bool detail::MeshAccess::statesDevicesPerProcess(const Mesh &mesh) {
  return mesh.states_devices_per_process_;
}

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
  // A HybridMesh says how many devices each process runs; any other mesh
  // must fit in the devices that exist.
  if (detail::MeshAccess::statesDevicesPerProcess(mesh)) {
    if (llvm::Error error = runtime::checkLocalDevices(
            made->numDevices() / std::max<int64_t>(1, world_size())))
      return toStatus(std::move(error));
    return std::move(*made);
  }
  llvm::Expected<int64_t> local = runtime::configuredDevices();
  if (!local)
    return toStatus(local.takeError());
  int64_t exist = *local * world_size();
  if (made->numDevices() > exist)
    return absl::InvalidArgumentError(fmt::format(
        "the mesh has {} devices but {} exist{} ({} per process, {} "
        "process{}); set SPMD_NUM_DEVICES={} for more virtual devices",
        made->numDevices(), exist, exist == 1 ? "s" : "", *local, world_size(),
        world_size() == 1 ? "" : "es",
        (made->numDevices() + world_size() - 1) / world_size()));
  return std::move(*made);
}

HybridMesh::HybridMesh(std::vector<int64_t> ici_mesh_shape,
                       std::vector<int64_t> dcn_mesh_shape,
                       std::vector<std::string> axis_names) {
  ici_shape_ = ici_mesh_shape;
  states_devices_per_process_ = true;
  axis_names_ = defaultNames(std::move(axis_names), ici_mesh_shape.size());
  llvm::Expected<HybridDeviceMesh> hybrid = HybridDeviceMesh::create(
      axis_names_, std::move(ici_mesh_shape), std::move(dcn_mesh_shape));
  if (!hybrid) {
    status_ = detail::toStatus(hybrid.takeError());
    return;
  }
  // As fromFile: the DCN shape is this run's processes.
  int64_t processes = 1;
  for (int64_t size : hybrid->dcnShape())
    processes *= size;
  if (processes != world_size()) {
    status_ = absl::InvalidArgumentError(
        processCountMismatch(processes, world_size()));
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
    return detail::toStatus(hybrid.takeError(), detail::fileErrorCode(path));
  HybridMesh mesh;
  mesh.states_devices_per_process_ = true;
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
// has as many devices as this one (they start alike).
int64_t global_runtime_device_count() {
  return addressable_device_count() * world_size();
}
int64_t addressable_device_count() {
  // An invalid SPMD_NUM_DEVICES is reported by every use of a mesh; the
  // count alone has no way to say it.
  llvm::Expected<int64_t> devices = runtime::configuredDevices();
  if (!devices) {
    llvm::consumeError(devices.takeError());
    return availableCores();
  }
  return *devices;
}
int64_t local_device_count() {
  return addressable_device_count() * local_process_count();
}
int64_t world_size() {
  runtime::MpiWorld *world = runtime::MpiWorld::get();
  return world ? world->size() : 1;
}
int64_t process_index() {
  runtime::MpiWorld *world = runtime::MpiWorld::get();
  return world ? world->rank() : 0;
}
/// Open MPI's figure `name` for this process, if it is running under it.
static std::optional<int64_t> openMpiFigure(const char *name) {
  const char *value = std::getenv(name);
  int64_t figure;
  if (!value || llvm::StringRef(value).getAsInteger(10, figure) || figure < 0)
    return std::nullopt;
  return figure;
}
int64_t local_process_count() {
  return std::max<int64_t>(
      1, openMpiFigure("OMPI_COMM_WORLD_LOCAL_SIZE").value_or(1));
}
int64_t global_ordinal() { return process_index(); }
int64_t local_ordinal() {
  return openMpiFigure("OMPI_COMM_WORLD_LOCAL_RANK").value_or(0);
}
bool is_master_ordinal(bool local) {
  return (local ? local_ordinal() : global_ordinal()) == 0;
}
std::string device_type() { return "CPU"; }

/// Bytes the process may use: its cgroup's limit when it has one, else
/// the machine's memory.
static int64_t processMemoryLimit() {
  int64_t machine =
      int64_t(sysconf(_SC_PHYS_PAGES)) * int64_t(sysconf(_SC_PAGE_SIZE));
  for (const char *path : {"/sys/fs/cgroup/memory.max",
                           "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream file(path);
    int64_t limit;
    if (file >> limit && limit > 0 && limit < machine)
      return limit;
  }
  return machine;
}

absl::StatusOr<MemoryInfo> get_memory_info(int64_t device) {
  // A HybridMesh may have this process run more devices than it has.
  int64_t devices =
      std::max(addressable_device_count(), runtime::heldBytesPositions());
  if (device < 0 || device >= devices)
    return absl::OutOfRangeError(fmt::format(
        "device {} is not one of this process's {} devices (0 to {})", device,
        devices, devices - 1));
  MemoryInfo info;
  info.bytes_used = runtime::heldBytes(device);
  info.bytes_limit = processMemoryLimit() / devices;
  return info;
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
