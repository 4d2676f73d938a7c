//===- Devices.cpp - Running on all local devices -------------------------===//

#include "runtime/devices/Devices.h"
#include "runtime/devices/DevicePool.h"
#include "runtime/comm/MpiWorld.h"
#include "runtime/exec/TensorOps.h"

#include "support/Machine.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

using namespace spmd;

namespace spmd::runtime {

void poison(HostBuffer &t) {
  for (int64_t i = 0; i < t.numElements(); ++i) {
    if (isFloat(t.type())) {
      static const double kFloats[] = {NAN, INFINITY, -INFINITY};
      t.setFloat(i, kFloats[i % 3]);
    } else {
      int64_t bits = 8 * elementTypeBytes(t.type());
      int64_t largest = bits >= 64 ? std::numeric_limits<int64_t>::max()
                                   : (int64_t(1) << (bits - 1)) - 1;
      const int64_t kInts[] = {largest, -largest - 1, 1};
      t.setInt(i, kInts[i % 3]);
    }
  }
}

TensorRef shardFor(const HostBuffer &global, const ShardLayout &layout,
                   int64_t device, ReductionKind partialKind) {
  return shardFor(global.data(), global.type(), layout, device, partialKind);
}

TensorRef shardFor(const uint8_t *global, ElementType type,
                   const ShardLayout &layout, int64_t device,
                   ReductionKind partialKind) {
  llvm::SmallVector<int64_t> local = layout.localShape();
  auto out = std::make_shared<HostBuffer>(
      type, std::vector<int64_t>(local.begin(), local.end()));
  std::vector<int64_t> offsets, sizes;
  bool padded = false;
  for (const DimSlice &slice : layout.sliceOf(device)) {
    offsets.push_back(slice.offset);
    sizes.push_back(slice.valid);
    padded |= slice.valid < slice.size;
  }
  // Padding holds unspecified values: poisoned, so that reading it as data
  // cannot go unnoticed.
  if (padded)
    poison(*out);
  // A pending sum: the first device of each group over the partial axes
  // holds the value, the others the sum's identity, so that their sum is
  // the value. For floats that is -0.0: +0.0 would turn a -0.0 into +0.0.
  // Every device holds it for max and min.
  if (partialKind == ReductionKind::Sum) {
    llvm::SmallVector<int64_t> coords = layout.mesh().coordsOf(device);
    if (llvm::any_of(layout.partialAxes(),
                     [&](AxisIndex a) { return coords[a] != 0; })) {
      HostBuffer zeros(type, sizes);
      if (isFloat(type))
        for (int64_t e = 0; e < zeros.numElements(); ++e)
          zeros.setFloat(e, -0.0);
      copyBox(zeros, std::vector<int64_t>(sizes.size(), 0), sizes, *out,
              std::vector<int64_t>(sizes.size(), 0));
      return out;
    }
  }
  copyBox(global, layout.globalShape(), offsets, sizes, *out,
          std::vector<int64_t>(sizes.size(), 0));
  return out;
}

ShardedBuffer::ShardedBuffer(std::vector<int64_t> globalShape,
                             std::vector<TensorRef> locals,
                             std::optional<ShardLayout> layout,
                             ReductionKind partialKind, int64_t firstDevice)
    : globalShape(std::move(globalShape)), layout_(std::move(layout)),
      partialKind_(partialKind) {
  for (auto [index, data] : llvm::enumerate(locals)) {
    int64_t device = firstDevice + index;
    std::vector<DimSlice> slices;
    if (layout_) {
      llvm::SmallVector<DimSlice> of = layout_->sliceOf(device);
      slices.assign(of.begin(), of.end());
    } else {
      for (int64_t size : this->globalShape)
        slices.push_back({0, size, size});
    }
    shards.push_back({device, std::move(data), std::move(slices)});
  }
}

/// Every device's buffer of a tensor whose shards are all in this process.
static std::vector<TensorRef> localsOf(const ShardedBuffer &tensor) {
  std::vector<TensorRef> locals;
  for (const ShardedBuffer::Shard &shard : tensor.localShards())
    locals.push_back(shard.data);
  return locals;
}

llvm::Expected<HostBuffer> ShardedBuffer::toHost() const {
  if (!layout_)
    return HostBuffer(*shards.front().data);
  if (int64_t(shards.size()) != layout_->mesh().numDevices())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the tensor's shards are on several processes: gather them over "
        "the processes");
  return assemble(localsOf(*this), *layout_, partialKind_);
}

std::vector<std::vector<int64_t>> copyHolders(const ShardLayout &layout) {
  const DeviceMesh &mesh = layout.mesh();
  // Each shard's holders: the devices with its index that are the first of
  // their partial group, in order.
  std::map<llvm::SmallVector<int64_t>, std::vector<int64_t>> holders;
  std::vector<llvm::SmallVector<int64_t>> order;
  for (int64_t device = 0; device < mesh.numDevices(); ++device) {
    if (mesh.groupOf(device, layout.partialAxes()).front() != device)
      continue;
    auto [it, inserted] = holders.try_emplace(layout.shardIndex(device));
    if (inserted)
      order.push_back(it->first);
    it->second.push_back(device);
  }
  size_t copies = holders.begin()->second.size();
  assert(llvm::all_of(holders,
                      [&](const auto &entry) {
                        return entry.second.size() == copies;
                      }) &&
         "every shard has as many copies");
  std::vector<std::vector<int64_t>> result(copies);
  for (size_t copy = 0; copy < copies; ++copy)
    for (const auto &index : order)
      result[copy].push_back(holders[index][copy]);
  return result;
}

/// Device `device`'s buffer combined over its partial group (padded).
static TensorRef groupValue(llvm::ArrayRef<TensorRef> locals,
                            const ShardLayout &layout,
                            ReductionKind partialKind, int64_t device) {
  std::vector<TensorRef> parts;
  for (int64_t member : layout.mesh().groupOf(device, layout.partialAxes()))
    parts.push_back(locals[member]);
  return parts.size() > 1 ? reduce(parts, partialKind) : parts[0];
}

/// The sizes of the part of device `device`'s buffer inside the tensor.
static std::vector<int64_t> validSizes(const ShardLayout &layout,
                                       int64_t device) {
  std::vector<int64_t> sizes;
  for (const DimSlice &slice : layout.sliceOf(device))
    sizes.push_back(slice.valid);
  return sizes;
}

TensorRef heldValue(llvm::ArrayRef<TensorRef> locals, const ShardLayout &layout,
                    ReductionKind partialKind, int64_t device) {
  TensorRef value = groupValue(locals, layout, partialKind, device);
  std::vector<int64_t> sizes = validSizes(layout, device);
  if (llvm::ArrayRef<int64_t>(sizes) == value->shape())
    return value;
  auto valid = std::make_shared<HostBuffer>(value->type(), sizes, Init::None);
  std::vector<int64_t> origin(sizes.size(), 0);
  copyBox(*value, origin, sizes, *valid, origin);
  return valid;
}

llvm::Expected<HostBuffer> assemble(llvm::ArrayRef<TensorRef> locals,
                                    const ShardLayout &layout,
                                    ReductionKind partialKind) {
  std::vector<int64_t> shape(layout.globalShape());
  HostBuffer global(locals[0]->type(), shape);
  // Each shard from its first holder.
  std::vector<std::vector<int64_t>> holders = copyHolders(layout);
  for (int64_t device : holders.front()) {
    std::vector<int64_t> offsets;
    for (const DimSlice &slice : layout.sliceOf(device))
      offsets.push_back(slice.offset);
    copyBox(*groupValue(locals, layout, partialKind, device),
            std::vector<int64_t>(offsets.size(), 0), validSizes(layout, device),
            global, offsets);
  }
  return global;
}

/// Every device's buffer of `tensor` on rank 0 (this process's elsewhere,
/// the others null): each process sends its shards to rank 0.
static llvm::Expected<std::vector<TensorRef>>
gatherLocals(const ShardedBuffer &tensor, MpiWorld &world) {
  // Every process holds as many devices' buffers, all of one shape (a
  // value without a layout is whole on each).
  llvm::ArrayRef<ShardedBuffer::Shard> shards = tensor.localShards();
  ElementType type = shards.front().data->type();
  std::vector<int64_t> localShape(shards.front().data->shape());
  int64_t rank = world.rank();
  int64_t localDevices = shards.size();
  int64_t devices = localDevices * world.size();
  int64_t firstLocal = rank * localDevices;
  std::vector<TensorRef> locals(devices);
  std::vector<Message> messages;
  for (int64_t device = 0; device < devices; ++device) {
    int64_t owner = device / localDevices;
    if (owner == rank) {
      locals[device] = shards[device - firstLocal].data;
      if (rank != 0)
        messages.push_back(
            {0, locals[device]->data(), locals[device]->sizeInBytes(), true});
    } else if (rank == 0) {
      locals[device] =
          std::make_shared<HostBuffer>(type, localShape, Init::None);
      messages.push_back({owner, locals[device]->data(),
                          locals[device]->sizeInBytes(), false});
    }
  }
  if (llvm::Error err = world.exchange(0, messages, "gathering a result"))
    return std::move(err);
  return locals;
}

llvm::Expected<HostBuffer> gatherToHost(const ShardedBuffer &tensor,
                                        MpiWorld *world, bool everywhere) {
  const std::optional<ShardLayout> &layout = tensor.layout();
  // Replicated: every device holds all of it.
  if (!world || !layout)
    return tensor.toHost();
  llvm::Expected<std::vector<TensorRef>> locals = gatherLocals(tensor, *world);
  if (!locals)
    return locals.takeError();
  int64_t rank = world->rank();
  HostBuffer global;
  if (rank == 0) {
    llvm::Expected<HostBuffer> assembled =
        assemble(*locals, *layout, tensor.partialKind());
    if (!assembled)
      return assembled.takeError();
    global = std::move(*assembled);
  } else if (everywhere) {
    global = HostBuffer(tensor.localShards().front().data->type(),
                        std::vector<int64_t>(tensor.shape()), Init::None);
  }
  if (!everywhere)
    return global;
  std::vector<Message> messages;
  for (int64_t r = 1; r < world->size(); ++r)
    if (rank == 0 || r == rank)
      messages.push_back({rank == 0 ? r : 0, global.data(),
                          global.sizeInBytes(), rank == 0});
  if (llvm::Error err = world->exchange(0, messages, "sending a result"))
    return std::move(err);
  return global;
}

llvm::Expected<std::vector<TensorRef>>
gatherShardsToHost(const ShardedBuffer &tensor, MpiWorld *world) {
  if (!world || world->size() == 1)
    return localsOf(tensor);
  llvm::Expected<std::vector<TensorRef>> locals = gatherLocals(tensor, *world);
  if (!locals || world->rank() == 0)
    return locals;
  return std::vector<TensorRef>();
}

llvm::Expected<int64_t> maxLocalDevices() {
  const char *env = std::getenv("SPMD_MAX_LOCAL_DEVICES");
  if (!env || !*env)
    return kDefaultMaxLocalDevices;
  int64_t limit;
  if (llvm::StringRef(env).getAsInteger(10, limit) || limit < 1 ||
      limit > DeviceMesh::kMaxDevices)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("SPMD_MAX_LOCAL_DEVICES={0} is not an integer in [1, "
                      "{1}]",
                      env, DeviceMesh::kMaxDevices));
  return limit;
}

llvm::Expected<int64_t> configuredDevices() {
  llvm::Expected<int64_t> limit = maxLocalDevices();
  if (!limit)
    return limit.takeError();
  const char *env = std::getenv("SPMD_NUM_DEVICES");
  if (!env || !*env)
    return std::min(availableCores(), *limit);
  int64_t devices;
  if (llvm::StringRef(env).getAsInteger(10, devices) || devices < 1 ||
      devices > *limit)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("SPMD_NUM_DEVICES={0} is not an integer in [1, {1}]", env,
                      *limit));
  return devices;
}

llvm::Error checkLocalDevices(int64_t numDevices) {
  llvm::Expected<int64_t> limit = maxLocalDevices();
  if (!limit)
    return limit.takeError();
  // Devices cost a reserved stack and their buffers; the limit keeps a
  // mistyped mesh from reserving the address space.
  if (numDevices > *limit)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("the mesh has {0} devices; one process runs at most {1} "
                      "(SPMD_MAX_LOCAL_DEVICES)",
                      numDevices, *limit));
  return llvm::Error::success();
}

llvm::Expected<std::vector<std::vector<RValue>>>
runOnDevices(const Executable &executable, llvm::StringRef function,
             std::vector<std::vector<RValue>> args, int64_t numDevices,
             Communicator &communicator, KernelThreads threadsPerDevice,
             std::shared_ptr<MemoryStats> memory, DevicePool *pool,
             int64_t firstDevice) {
  if (llvm::Error error = checkLocalDevices(numDevices))
    return error;
  std::vector<std::vector<RValue>> results(numDevices);
  std::vector<std::string> errors(numDevices);
  // The device that failed first: the others stop at their next collective
  // and their errors only name it.
  std::atomic<int64_t> firstFailed{-1};
  std::optional<DevicePool> own;
  if (!pool)
    pool = &own.emplace();
  if (llvm::Error error = pool->run(
          numDevices, defaultDeviceWorkers(numDevices), [&](int64_t index) {
            MemoryScope::setCurrent({memory, index});
            DeviceContext context;
            context.device = firstDevice + index;
            context.threads = threadsPerDevice;
            context.communicator = &communicator;
            llvm::Expected<std::vector<RValue>> out =
                executable.run(function, std::move(args[index]), context);
            if (out) {
              results[index] = std::move(*out);
              communicator.depart(context.device);
              return;
            }
            errors[index] = llvm::toString(out.takeError());
            if (communicator.fail(context.device))
              firstFailed = index;
          }))
    return error;
  communicator.endRun();
  if (int64_t index = firstFailed; index >= 0)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "device " +
                                       std::to_string(firstDevice + index) +
                                       ": " + errors[index]);
  return results;
}

} // namespace spmd::runtime
