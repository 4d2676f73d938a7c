//===- Parallel.h - Threads inside one device -------------------*- C++ -*-===//
//
// A kernel may split its work over its device's threads
// (--threads-per-device): the calling thread and helpers from a pool that
// lives as long as the LoadedProgram, so no kernel call starts a thread.
// Helpers count their allocations for the calling device.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_PARALLEL_H
#define SPMD_RUNTIME_PARALLEL_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <memory>

namespace spmd::runtime {

/// The most threads one device's kernels use (--threads-per-device).
inline constexpr int64_t kMaxThreadsPerDevice = 256;
/// The most helper threads a pool starts, whatever its devices ask for:
/// only a few devices run kernels at once (one per core), and a thread
/// each for thousands of devices failed to start.
inline constexpr int64_t kMaxKernelHelpers = 1024;

/// Persistent helper threads shared by the devices of a LoadedProgram.
class KernelThreadPool {
public:
  /// A pool of `threads` helpers, at least 1 and at most kMaxKernelHelpers
  /// (more parts than helpers wait in its queue).
  explicit KernelThreadPool(int64_t threads);
  ~KernelThreadPool();
  int64_t numThreads() const;

private:
  friend void parallelForOn(KernelThreadPool &, int64_t, int64_t,
                            llvm::function_ref<void(int64_t, int64_t)>);
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Below this many multiply-adds per thread (GEMMs, convolutions), more
/// threads cost more than they save.
inline constexpr int64_t kMacsPerThread = 1 << 20;

/// The threads a kernel may use: up to `count`, the calling thread and
/// helpers from `pool` (none: the calling thread alone).
struct KernelThreads {
  int64_t count = 1;
  KernelThreadPool *pool = nullptr;

  /// At most `n` threads (and kMaxThreadsPerDevice), at least one.
  KernelThreads atMost(int64_t n) const;
};

/// Runs `body(first, last)` over `threads.count` contiguous parts of
/// [0, n), the first part on the calling thread; returns when all are done.
void parallelFor(KernelThreads threads, int64_t n,
                 llvm::function_ref<void(int64_t, int64_t)> body);

/// The default threads per device: the machine's cores shared out.
int64_t defaultThreadsPerDevice(int64_t devices);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_PARALLEL_H
