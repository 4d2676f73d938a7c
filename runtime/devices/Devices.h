//===- Devices.h - Running on all local devices -----------------*- C++ -*-===//
//
// Runs one executable on N virtual devices (multiplexed over a few threads,
// runtime/devices/DevicePool.h) as one logical device: host tensors are split into
// per-device shards by their sharding (uneven dimensions padded), and
// results assembled back.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_DEVICES_H
#define SPMD_RUNTIME_DEVICES_H

#include "runtime/devices/DevicePool.h"
#include "runtime/exec/Executable.h"
#include "sharding/ShardLayout.h"

namespace spmd::runtime {

/// A tensor split over devices: each device's local buffer, with the
/// global ranges it holds. Without a layout the tensor is replicated.
class ShardedBuffer {
public:
  struct Shard {
    int64_t device;
    TensorRef data;               // local, padded
    std::vector<DimSlice> slices; // global ranges per dimension
  };

  /// `locals[i]` is device `firstDevice + i`'s buffer: every device's, or
  /// under MPI those of this process.
  ShardedBuffer(std::vector<int64_t> globalShape, std::vector<TensorRef> locals,
                std::optional<ShardLayout> layout, ReductionKind partialKind,
                int64_t firstDevice = 0);

  llvm::ArrayRef<Shard> localShards() const { return shards; }
  llvm::ArrayRef<int64_t> shape() const { return globalShape; }
  const std::optional<ShardLayout> &layout() const { return layout_; }
  ReductionKind partialKind() const { return partialKind_; }
  /// The global tensor: each element from a device holding it, partial
  /// values combined over their groups. Needs every device's shard (with
  /// several processes, see assembleOverProcesses).
  llvm::Expected<HostBuffer> toHost() const;

private:
  std::vector<int64_t> globalShape;
  std::vector<Shard> shards;
  std::optional<ShardLayout> layout_;
  ReductionKind partialKind_;
};

class MpiWorld;
/// The global tensor from shards spread over the processes of `world`
/// (null: one process, every shard here; under MPI every process calls
/// it). Each process sends its shards to rank 0, which assembles them; with
/// `everywhere` rank 0 then sends the whole tensor to every process, else
/// the others get an empty tensor.
llvm::Expected<HostBuffer> gatherToHost(const ShardedBuffer &tensor,
                                        MpiWorld *world, bool everywhere);
/// Every device's buffer of `tensor` on rank 0 (the other processes get
/// none; every process calls it), for a check of all its copies
/// (copyHolders). A tensor without a layout (a scalar result, say) is whole
/// on every device: each buffer is a copy.
llvm::Expected<std::vector<TensorRef>>
gatherShardsToHost(const ShardedBuffer &tensor, MpiWorld *world);

/// Fills `t` with values no correct partitioned program can depend on:
/// NaN, +inf and -inf in turn for floats; the largest, the smallest and 1
/// in turn for integers. So a reduction that counts padding shows it,
/// whatever its kind. Shards are poisoned before their data is copied in.
void poison(HostBuffer &t);

/// Device `device`'s shard of `global` under `layout` (padding poisoned:
/// NaN and infinities, extreme integers).
/// With partial axes, the shards' `partialKind` reduction is `global`: for
/// sums, the first device of each group over the partial axes holds the
/// value and the others zeros (-0.0 for floats); for max and min every device
/// holds it. The kind has no default, since the layout does not carry it and
/// zeros are no identity of max or min.
TensorRef shardFor(const HostBuffer &global, const ShardLayout &layout,
                   int64_t device, ReductionKind partialKind);
/// The same from the row-major data of the global tensor (of `type`),
/// which is only read where the shard lies.
TensorRef shardFor(const uint8_t *global, ElementType type,
                   const ShardLayout &layout, int64_t device,
                   ReductionKind partialKind);
/// The devices each copy of a tensor under `layout` is taken from: copy
/// r takes every shard from the r-th device (in order) holding it, each
/// device standing for its partial group (it is the group's first). Copy 0
/// is the tensor a run returns; a tensor replicated over axes of n devices
/// has n copies, which a correct program makes equal.
std::vector<std::vector<int64_t>> copyHolders(const ShardLayout &layout);
/// The value device `device` stands for in copyHolders: its local buffer,
/// reduced over its partial group, without padding (its valid box).
TensorRef heldValue(llvm::ArrayRef<TensorRef> locals, const ShardLayout &layout,
                    ReductionKind partialKind, int64_t device);
/// The global tensor from every device's local buffer (`locals[d]` on
/// device d): copy 0 of copyHolders, partial groups reduced.
llvm::Expected<HostBuffer> assemble(llvm::ArrayRef<TensorRef> locals,
                                    const ShardLayout &layout,
                                    ReductionKind partialKind);

/// The most devices one process runs when SPMD_MAX_LOCAL_DEVICES is not set
/// (each reserves a stack and its buffers).
inline constexpr int64_t kDefaultMaxLocalDevices = 8192;
/// The most devices one process runs: SPMD_MAX_LOCAL_DEVICES if set (a
/// positive integer of at most DeviceMesh::kMaxDevices), else
/// kDefaultMaxLocalDevices. An invalid value is an error naming it.
llvm::Expected<int64_t> maxLocalDevices();
/// Whether one process may run `numDevices` devices: an error with the
/// limit (or the invalid SPMD_MAX_LOCAL_DEVICES) if not. The tools, the
/// runtime and the API all check the device count here.
llvm::Error checkLocalDevices(int64_t numDevices);
/// The devices one process has: SPMD_NUM_DEVICES if set (virtual devices,
/// at most maxLocalDevices()), else one per core the process may run on
/// (its CPU affinity), as other runtimes count CPU devices. An invalid
/// value is an error naming it.
llvm::Expected<int64_t> configuredDevices();

/// Runs `function` of `executable` on devices `firstDevice` ..
/// `firstDevice + numDevices - 1`, each kernel using up to
/// `threadsPerDevice`; `args[i]` are device `firstDevice + i`'s arguments.
/// The storage that device allocates counts in `memory` (if given) as
/// i's. Devices run on `pool` (if given, else on a pool of their own).
/// Returns each device's results.
llvm::Expected<std::vector<std::vector<RValue>>>
runOnDevices(const Executable &executable, llvm::StringRef function,
             std::vector<std::vector<RValue>> args, int64_t numDevices,
             Communicator &communicator, KernelThreads threadsPerDevice = {},
             std::shared_ptr<MemoryStats> memory = nullptr,
             DevicePool *pool = nullptr, int64_t firstDevice = 0);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_DEVICES_H
