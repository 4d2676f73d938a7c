//===- Parallel.h - Threads inside one device -------------------*- C++ -*-===//
//
// A kernel may split its work over its device's threads
// (--threads-per-device). Helper threads count their allocations for the
// calling thread's device.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_PARALLEL_H
#define SPMD_RUNTIME_PARALLEL_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>

namespace spmd::runtime {

/// Runs `body(first, last)` over `threads` contiguous parts of [0, n), the
/// first part on the calling thread; returns when all are done.
void parallelFor(int64_t threads, int64_t n,
                 llvm::function_ref<void(int64_t, int64_t)> body);

/// The default threads per device: the machine's cores shared out.
int64_t defaultThreadsPerDevice(int64_t devices);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_PARALLEL_H
