//===- Parallel.cpp - Threads inside one device ---------------------------===//

#include "runtime/kernels/Parallel.h"
#include "runtime/exec/HostBuffer.h"
#include "support/Machine.h"

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/ThreadPool>

#include <algorithm>
#include <thread>

namespace spmd::runtime {

struct KernelThreadPool::Impl {
  explicit Impl(int64_t threads) : pool(threads) {}
  Eigen::ThreadPool pool;
};

KernelThreadPool::KernelThreadPool(int64_t threads)
    : impl(std::make_unique<Impl>(
          std::clamp<int64_t>(threads, 1, kMaxKernelHelpers))) {}
KernelThreadPool::~KernelThreadPool() = default;
int64_t KernelThreadPool::numThreads() const {
  return impl->pool.NumThreads();
}

KernelThreads KernelThreads::atMost(int64_t n) const {
  return {std::clamp<int64_t>(count, 1,
                              std::clamp<int64_t>(n, 1, kMaxThreadsPerDevice)),
          pool};
}

void parallelForOn(KernelThreadPool &threads, int64_t parts, int64_t n,
                   llvm::function_ref<void(int64_t, int64_t)> body) {
  Eigen::ThreadPool &pool = threads.impl->pool;
  // A helper that splits its own part would wait for tasks queued behind
  // it on a pool whose threads may all be waiting: it runs them itself.
  if (pool.CurrentThreadId() >= 0) {
    body(0, n);
    return;
  }
  const MemoryScope &memory = MemoryScope::current();
  Eigen::Barrier done(parts - 1);
  for (int64_t t = 1; t < parts; ++t)
    pool.Schedule([&, t] {
      MemoryScope::setCurrent(memory);
      body(n * t / parts, n * (t + 1) / parts);
      MemoryScope::setCurrent({});
      done.Notify();
    });
  body(0, n / parts);
  done.Wait();
}

void parallelFor(KernelThreads threads, int64_t n,
                 llvm::function_ref<void(int64_t, int64_t)> body) {
  int64_t parts = threads.atMost(n).count;
  if (parts == 1 || !threads.pool) {
    body(0, n);
    return;
  }
  parallelForOn(*threads.pool, parts, n, body);
}

int64_t defaultThreadsPerDevice(int64_t devices) {
  return std::max<int64_t>(1, availableCores() / std::max<int64_t>(devices, 1));
}

} // namespace spmd::runtime
