//===- Tensors.cpp - Host tensors and tensors on the devices --------------===//

#include "Internal.h"

#include "runtime/comm/MpiWorld.h"
#include "sharding/ShardLayout.h"

#include "llvm/Support/xxhash.h"

#include "fmt/format.h"
#include "fmt/ranges.h"

#include <cstring>

namespace spmd {
using detail::ShardedStorage;
using detail::TensorStorage;

runtime::ElementType detail::toRuntime(DType type) {
  switch (type) {
  case DType::F32:
    return runtime::ElementType::F32;
  case DType::F64:
    return runtime::ElementType::F64;
  case DType::F16:
    return runtime::ElementType::F16;
  case DType::BF16:
    return runtime::ElementType::BF16;
  case DType::I1:
    return runtime::ElementType::I1;
  case DType::I8:
    return runtime::ElementType::I8;
  case DType::I16:
    return runtime::ElementType::I16;
  case DType::I32:
    return runtime::ElementType::I32;
  case DType::I64:
    return runtime::ElementType::I64;
  }
  return runtime::ElementType::F32;
}

std::optional<DType> detail::fromRuntime(runtime::ElementType type) {
  switch (type) {
  case runtime::ElementType::F32:
    return DType::F32;
  case runtime::ElementType::F64:
    return DType::F64;
  case runtime::ElementType::F16:
    return DType::F16;
  case runtime::ElementType::BF16:
    return DType::BF16;
  case runtime::ElementType::I1:
    return DType::I1;
  case runtime::ElementType::I8:
    return DType::I8;
  case runtime::ElementType::I16:
    return DType::I16;
  case runtime::ElementType::I32:
    return DType::I32;
  case runtime::ElementType::I64:
    return DType::I64;
  case runtime::ElementType::Index:
    return DType::I64;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

HostTensor TensorStorage::wrap(runtime::TensorRef tensor) {
  HostTensor t;
  t.storage_->tensor = std::move(tensor);
  return t;
}

absl::Status HostTensor::status() const { return storage_->status; }

/// Why `shape` cannot be a tensor's: a negative size, or more elements than
/// 2^40.
static absl::Status checkShape(const std::vector<int64_t> &shape) {
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && elements > (int64_t(1) << 40) / d))
      return absl::InvalidArgumentError(
          fmt::format("invalid tensor shape [{}]", fmt::join(shape, ", ")));
    elements *= d;
  }
  return absl::OkStatus();
}

/// A 0-d zero.
HostTensor::HostTensor() : HostTensor(DType::F32, {}) {}

HostTensor::HostTensor(DType dtype, std::vector<int64_t> shape)
    : storage_(std::make_shared<TensorStorage>()) {
  storage_->status = checkShape(shape);
  // An invalid tensor holds nothing; every call given it returns why.
  storage_->tensor = std::make_shared<runtime::HostBuffer>(
      detail::toRuntime(dtype),
      storage_->status.ok() ? std::move(shape) : std::vector<int64_t>{0});
}

absl::StatusOr<HostTensor> HostTensor::fromBytes(DType dtype,
                                                 std::vector<int64_t> shape,
                                                 const void *data,
                                                 size_t bytes) {
  if (absl::Status status = checkShape(shape); !status.ok())
    return status;
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  int64_t width = runtime::elementTypeBytes(detail::toRuntime(dtype));
  if (int64_t(bytes) != elements * width)
    return absl::InvalidArgumentError(
        fmt::format("{} bytes given for a tensor of shape [{}] that holds {}",
                    bytes, fmt::join(shape, ", "), elements * width));
  if (bytes && !data)
    return absl::InvalidArgumentError(
        fmt::format("no data given for {} bytes", bytes));
  if (dtype == DType::I1)
    if (std::optional<uint64_t> bad =
            runtime::firstNonBool(static_cast<const uint8_t *>(data), bytes))
      return absl::InvalidArgumentError(
          runtime::notABool(*bad, static_cast<const uint8_t *>(data)[*bad]));
  HostTensor t(dtype, std::move(shape));
  if (bytes)
    std::memcpy(t.data(), data, bytes);
  return t;
}

DType HostTensor::dtype() const {
  return *detail::fromRuntime(storage_->tensor->type());
}
std::vector<int64_t> HostTensor::shape() const {
  return storage_->tensor->shape().vec();
}
int64_t HostTensor::numel() const { return storage_->tensor->numElements(); }
const void *HostTensor::data() const { return storage_->tensor->data(); }
void *HostTensor::data() {
  // Copy on write: tensors share buffers with the devices' shards.
  if (storage_->tensor.use_count() > 1)
    storage_->tensor = std::make_shared<runtime::HostBuffer>(*storage_->tensor);
  return storage_->tensor->data();
}
double HostTensor::at(int64_t flat_index) const {
  if (flat_index < 0 || flat_index >= numel())
    return 0;
  return storage_->tensor->getAsDouble(flat_index);
}
absl::Status HostTensor::typeMismatch() const {
  return absl::InvalidArgumentError(
      fmt::format("the tensor holds {}",
                  runtime::elementTypeName(storage_->tensor->type()).str()));
}

//===----------------------------------------------------------------------===//
// ShardedTensor
//===----------------------------------------------------------------------===//

ShardedTensor ShardedStorage::wrap(std::shared_ptr<ShardedStorage> storage) {
  ShardedTensor t;
  t.storage_ = std::move(storage);
  return t;
}

std::vector<runtime::TensorRef> ShardedStorage::locals() const {
  std::vector<runtime::TensorRef> buffers;
  for (const runtime::ShardedBuffer::Shard &shard : tensor.localShards())
    buffers.push_back(shard.data);
  return buffers;
}

static const std::vector<int64_t> kNoShape;

const std::vector<int64_t> &ShardedTensor::shape() const {
  return storage_ ? storage_->shape : kNoShape;
}
DType ShardedTensor::dtype() const {
  return storage_ ? storage_->dtype : DType::F32;
}
std::string ShardedTensor::sharding() const {
  return storage_ ? storage_->sharding.str() : "";
}

std::vector<ShardedTensor::Shard> ShardedTensor::local_shards() const {
  std::vector<Shard> shards;
  if (!storage_)
    return shards;
  for (const runtime::ShardedBuffer::Shard &shard :
       storage_->tensor.localShards()) {
    Shard out{TensorStorage::wrap(shard.data), {}, shard.device};
    // A piece that is all padding starts past the end: clamped, as
    // torch_xla does ([5, 5) on a dimension of 5).
    for (auto [slice, size] : llvm::zip(shard.slices, storage_->shape)) {
      int64_t begin = std::min(slice.offset, size);
      out.indices.emplace_back(begin, std::min(begin + slice.valid, size));
    }
    shards.push_back(std::move(out));
  }
  return shards;
}

absl::StatusOr<HostTensor> ShardedTensor::to_host() const {
  if (!storage_)
    return absl::FailedPreconditionError(
        "the tensor holds nothing (it was never placed on devices)");
  // Processes that placed it differently (another spec or mesh on one)
  // would assemble pieces of different tensors.
  std::string placed = fmt::format(
      "{} {} {} [{}]", storage_->mesh.str(), storage_->sharding.str(),
      int(storage_->dtype), fmt::join(storage_->shape, ","));
  absl::StatusOr<bool> same = detail::sameOnEveryProcess(
      llvm::xxh3_64bits(placed), "gathering a tensor");
  if (!same.ok())
    return same.status();
  if (!*same)
    return absl::FailedPreconditionError(
        "the processes placed this tensor differently (another mesh, "
        "partition spec or shape on some): under mpirun every process "
        "places it alike");
  llvm::Expected<runtime::HostBuffer> whole = runtime::gatherToHost(
      storage_->tensor, detail::mpiProcesses(), /*everywhere=*/true);
  if (!whole)
    return detail::toStatus(whole.takeError(), absl::StatusCode::kInternal);
  return TensorStorage::wrap(
      std::make_shared<runtime::HostBuffer>(std::move(*whole)));
}

absl::StatusOr<std::pair<int64_t, int64_t>>
detail::localDevices(const DeviceMesh &mesh) {
  int64_t processes = world_size();
  if (mesh.numDevices() % processes != 0)
    return absl::InvalidArgumentError(fmt::format(
        "the mesh has {} devices, which {} processes cannot share evenly",
        mesh.numDevices(), processes));
  int64_t perProcess = mesh.numDevices() / processes;
  return std::make_pair(process_index() * perProcess, perProcess);
}

absl::StatusOr<detail::Placement>
detail::placement(const Mesh &mesh, const PartitionSpec &spec,
                  llvm::ArrayRef<int64_t> shape) {
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
  absl::StatusOr<std::pair<int64_t, int64_t>> devices =
      detail::localDevices(*deviceMesh);
  if (!devices.ok())
    return devices.status();
  return Placement{*deviceMesh, *sharding, *layout, devices->first,
                   devices->second};
}

ShardedTensor detail::Placement::wrap(std::vector<runtime::TensorRef> locals,
                                      runtime::ElementType type) const {
  std::vector<int64_t> shape = layout.globalShape().vec();
  auto storage = std::make_shared<ShardedStorage>(ShardedStorage{
      runtime::ShardedBuffer(shape, std::move(locals), layout,
                             ReductionKind::Sum, firstDevice),
      mesh, sharding, detail::fromRuntime(type).value_or(DType::F32), shape});
  return ShardedStorage::wrap(std::move(storage));
}

absl::StatusOr<ShardedTensor> detail::place(const uint8_t *data,
                                            runtime::ElementType type,
                                            llvm::ArrayRef<int64_t> shape,
                                            const Mesh &mesh,
                                            const PartitionSpec &spec) {
  absl::StatusOr<Placement> placed = placement(mesh, spec, shape);
  if (!placed.ok())
    return placed.status();
  std::vector<runtime::TensorRef> locals;
  for (int64_t device = placed->firstDevice;
       device < placed->firstDevice + placed->numDevices; ++device) {
    runtime::CountedFor counted(device - placed->firstDevice);
    locals.push_back(runtime::shardFor(data, type, placed->layout, device,
                                       ReductionKind::Sum));
  }
  return placed->wrap(std::move(locals), type);
}

absl::StatusOr<ShardedTensor> mark_sharding(const HostTensor &tensor,
                                            const Mesh &mesh,
                                            const PartitionSpec &spec) {
  if (!tensor.status().ok())
    return tensor.status();
  const runtime::HostBuffer &host = TensorStorage::of(tensor);
  return detail::place(host.data(), host.type(), host.shape(), mesh, spec);
}

} // namespace spmd
