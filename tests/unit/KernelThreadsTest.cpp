//===- KernelThreadsTest.cpp - Bounds of the kernels' threads -------------===//
//
// However many threads are asked for (a count past an int, thousands of
// devices times their threads), a pool starts a bounded number and a
// kernel splits into a bounded number of parts, all of them run.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/Parallel.h"

#include "gtest/gtest.h"

#include <atomic>

using namespace spmd::runtime;

TEST(KernelThreads, PoolsStartAtMostTheLimit) {
  // 2^31 helpers crashed: Eigen's pool counts its threads in an int.
  KernelThreadPool huge(int64_t(1) << 31);
  EXPECT_EQ(huge.numThreads(), 1024);
  KernelThreadPool none(-5);
  EXPECT_EQ(none.numThreads(), 1);
}

TEST(KernelThreads, KernelsSplitIntoAtMostTheLimit) {
  KernelThreadPool pool(3);
  KernelThreads threads{int64_t(1) << 40, &pool};
  EXPECT_EQ(threads.atMost(int64_t(1) << 20).count, 256);
  EXPECT_EQ(threads.atMost(5).count, 5);
  // More parts than helpers: they wait in the pool's queue, all run.
  std::atomic<int64_t> covered{0}, parts{0};
  parallelFor(threads, 100000, [&](int64_t first, int64_t last) {
    covered += last - first;
    ++parts;
  });
  EXPECT_EQ(covered.load(), 100000);
  EXPECT_EQ(parts.load(), 256);
}
