//===- Parallel.cpp - Threads inside one device ---------------------------===//

#include "runtime/Parallel.h"
#include "runtime/HostTensor.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace spmd::runtime {

void parallelFor(int64_t threads, int64_t n,
                 llvm::function_ref<void(int64_t, int64_t)> body) {
  threads = std::clamp<int64_t>(threads, 1, std::max<int64_t>(n, 1));
  if (threads == 1) {
    body(0, n);
    return;
  }
  const MemoryScope &memory = MemoryScope::current();
  std::vector<std::thread> helpers;
  for (int64_t t = 1; t < threads; ++t)
    helpers.emplace_back([=] {
      MemoryScope::setCurrent(memory);
      body(n * t / threads, n * (t + 1) / threads);
    });
  body(0, n / threads);
  for (std::thread &helper : helpers)
    helper.join();
}

int64_t defaultThreadsPerDevice(int64_t devices) {
  int64_t cores = std::max<unsigned>(std::thread::hardware_concurrency(), 1);
  return std::max<int64_t>(1, cores / std::max<int64_t>(devices, 1));
}

} // namespace spmd::runtime
