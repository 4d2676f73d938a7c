//===- DevicePool.h - Devices multiplexed over a few threads ----*- C++ -*-===//
//
// A process may run thousands of devices on a few cores. Each device is a
// fiber (its own stack, switched with swapcontext) pinned to one of a few
// worker threads; a device that waits for others (a collective) yields its
// worker to the next device that can run, so devices never need a thread
// each and a collective over all of them cannot deadlock the pool.
//
// Waiting goes through waitForDevices/notifyDevices, which also serve
// callers that are plain threads (tests, the single-device reference run).
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_DEVICEPOOL_H
#define SPMD_RUNTIME_DEVICEPOOL_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

namespace spmd::runtime {

/// Worker threads and device stacks, kept from one run to the next (a
/// LoadedProgram keeps one), so a run starts no thread and maps no stack that
/// an earlier one made.
class DevicePool {
public:
  DevicePool();
  ~DevicePool();

  /// Runs `body(device)` for every device in [0, numDevices) over
  /// `workers` threads (the calling one and helpers; at least one, at most
  /// one per device) and returns when all are done. Fails, running
  /// nothing, if the devices' stacks cannot be reserved. Runs on one pool
  /// take turns.
  llvm::Error run(int64_t numDevices, int64_t workers,
                  llvm::function_ref<void(int64_t)> body);

private:
  struct State;
  std::unique_ptr<State> state;
};

/// DevicePool::run on a pool of its own.
llvm::Error runOnDevicePool(int64_t numDevices, int64_t workers,
                            llvm::function_ref<void(int64_t)> body);

/// The pool's workers for `numDevices` devices: one per core, at most one
/// per device.
int64_t defaultDeviceWorkers(int64_t numDevices);

/// With `lock` held on entry and on return, waits until `ready()` (checked
/// with the lock held) or until `timeout` has passed; returns `ready()`.
/// A device of a pool lets the other devices of its worker run meanwhile;
/// any other thread waits on `changed`.
bool waitForDevices(std::unique_lock<std::mutex> &lock,
                    std::condition_variable &changed,
                    std::chrono::milliseconds timeout,
                    llvm::function_ref<bool()> ready);

/// The device of the pool run that calls it (its `body`'s argument), or
/// -1 outside a pool's device.
int64_t currentPoolDevice();

/// Wakes whoever waits for a change behind `changed`: threads, and the
/// devices of the calling device's pool.
void notifyDevices(std::condition_variable &changed);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_DEVICEPOOL_H
