//===- DevicePoolTest.cpp - Devices multiplexed over a few threads --------===//

#include "runtime/devices/DevicePool.h"
#include "runtime/comm/Communicator.h"
#include "runtime/exec/HostBuffer.h"

#include <gtest/gtest.h>

#include <atomic>

#include <set>
#include <thread>

using namespace spmd;
using namespace spmd::runtime;

namespace {

TensorRef scalar(int64_t value) {
  auto t =
      std::make_shared<HostBuffer>(ElementType::I64, std::vector<int64_t>{});
  t->setInt(0, value);
  return t;
}

// 4,096 devices on two threads: every device takes part in collectives
// over all of them and over pairs, which would deadlock if a waiting
// device held its thread.
TEST(DevicePool, ThousandsOfDevicesOnTwoThreads) {
  constexpr int64_t kDevices = 4096, kWorkers = 2;
  LocalCommunicator communicator;
  std::vector<int64_t> everyone;
  for (int64_t d = 0; d < kDevices; ++d)
    everyone.push_back(d);
  std::vector<int64_t> sums(kDevices), partners(kDevices), devices(kDevices);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  llvm::Error error = runOnDevicePool(kDevices, kWorkers, [&](int64_t d) {
    {
      std::lock_guard<std::mutex> guard(mutex);
      threads.insert(std::this_thread::get_id());
    }
    MemoryScope::setCurrent({nullptr, d});
    devices[d] = MemoryScope::current().device;
    llvm::Expected<TensorRef> sum = communicator.allReduce(
        "sum", "test", d, everyone, scalar(d), ReductionKind::Sum);
    ASSERT_TRUE(bool(sum)) << llvm::toString(sum.takeError());
    sums[d] = (*sum)->getInt(0);
    std::vector<int64_t> pair = {d & ~int64_t(1), d | 1};
    llvm::Expected<std::vector<TensorRef>> both =
        communicator.exchange("pair", "test", d, pair, scalar(d * 10));
    ASSERT_TRUE(bool(both)) << llvm::toString(both.takeError());
    partners[d] = (*both)[(d & 1) ^ 1]->getInt(0);
    // The device is still itself after waiting on another thread's turn.
    EXPECT_EQ(MemoryScope::current().device, d);
  });
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  EXPECT_LE(threads.size(), size_t(kWorkers));
  for (int64_t d = 0; d < kDevices; ++d) {
    EXPECT_EQ(sums[d], kDevices * (kDevices - 1) / 2) << d;
    EXPECT_EQ(partners[d], (d ^ 1) * 10) << d;
    EXPECT_EQ(devices[d], d);
  }
}

// One worker for many devices: every collective must still complete.
TEST(DevicePool, OneThreadRunsAGroupThatWaitsForEachOther) {
  LocalCommunicator communicator;
  std::vector<int64_t> group = {3, 1, 0, 2}, seen(4);
  llvm::Error error = runOnDevicePool(4, 1, [&](int64_t d) {
    for (int round = 0; round < 3; ++round) {
      llvm::Expected<std::vector<TensorRef>> all = communicator.exchange(
          "r" + std::to_string(round), "test", d, group, scalar(d + round));
      ASSERT_TRUE(bool(all)) << llvm::toString(all.takeError());
      for (size_t i = 0; i < group.size(); ++i)
        EXPECT_EQ((*all)[i]->getInt(0), group[i] + round);
    }
    seen[d] = 1;
  });
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  EXPECT_EQ(seen, std::vector<int64_t>(4, 1));
}

// A device that never arrives: the others report it after the timeout and
// the pool returns. The timeout leaves a loaded machine time to start device
// 3, which must not be named.
TEST(DevicePool, MissingDeviceTimesOutInsteadOfHanging) {
  LocalCommunicator communicator(std::chrono::seconds(2));
  std::vector<int64_t> group = {0, 1, 2, 3};
  std::vector<std::string> errors(4);
  llvm::Error error = runOnDevicePool(4, 2, [&](int64_t d) {
    if (d == 2)
      return;
    llvm::Expected<std::vector<TensorRef>> all =
        communicator.exchange("k", "'spmd.all_gather'", d, group, scalar(d));
    if (!all)
      errors[d] = llvm::toString(all.takeError());
  });
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  for (int64_t d : {0, 1, 3})
    EXPECT_NE(errors[d].find("device 2 of its group did not arrive"),
              std::string::npos)
        << errors[d];
}

// A device has a thread's worth of stack (kernels put scratch blocks on
// it).
TEST(DevicePool, DevicesHaveMegabytesOfStack) {
  std::vector<int64_t> sums(3);
  llvm::Error error = runOnDevicePool(3, 1, [&](int64_t d) {
    volatile char block[4 << 20];
    for (size_t i = 0; i < sizeof(block); i += 4096)
      block[i] = char(d);
    int64_t sum = 0;
    for (size_t i = 0; i < sizeof(block); i += 4096)
      sum += block[i];
    sums[d] = sum;
  });
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  EXPECT_EQ(sums, (std::vector<int64_t>{0, 1024, 2048}));
}

} // namespace

namespace {

// A device that fails (it will never arrive) ends the collective the others
// wait in at once, with an error naming it, long before the timeout.
TEST(DevicePool, AFailedDeviceEndsTheCollectiveAtOnce) {
  LocalCommunicator communicator; // a 60 s timeout
  std::vector<int64_t> group = {0, 1, 2, 3};
  std::vector<std::string> errors(4);
  auto start = std::chrono::steady_clock::now();
  llvm::Error error = runOnDevicePool(4, 2, [&](int64_t d) {
    if (d == 2) {
      // Fails after the others are waiting.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      EXPECT_TRUE(communicator.fail(2));
      return;
    }
    llvm::Expected<std::vector<TensorRef>> all =
        communicator.exchange("k", "'spmd.all_gather'", d, group, scalar(d));
    if (!all)
      errors[d] = llvm::toString(all.takeError());
    // Later collectives fail at once too.
    llvm::Expected<std::vector<TensorRef>> next =
        communicator.exchange("k2", "'spmd.all_reduce'", d, group, scalar(d));
    EXPECT_FALSE(bool(next));
    if (!next)
      llvm::consumeError(next.takeError());
  });
  ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
  // Far below the 60 s timeout, with room for a loaded machine.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_FALSE(communicator.fail(1)); // not the first
  for (int64_t d : {0, 1, 3})
    EXPECT_NE(errors[d].find("'spmd.all_gather' on device " +
                             std::to_string(d) +
                             " stopped: device 2 failed"),
              std::string::npos)
        << errors[d];
}

// The same with devices that are plain threads.
TEST(LocalCommunicator, AFailedDeviceEndsTheWaitOfThreads) {
  LocalCommunicator communicator;
  std::vector<int64_t> group = {0, 1, 2};
  std::vector<std::string> errors(3);
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int64_t d : {0, 1})
    threads.emplace_back([&, d] {
      llvm::Expected<std::vector<TensorRef>> all =
          communicator.exchange("k", "'spmd.all_to_all'", d, group, scalar(d));
      if (!all)
        errors[d] = llvm::toString(all.takeError());
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  communicator.fail(2);
  for (std::thread &t : threads)
    t.join();
  // Far below the 60 s timeout, with room for a loaded machine.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  for (int64_t d : {0, 1})
    EXPECT_NE(errors[d].find("device 2 failed"), std::string::npos)
        << errors[d];
}

// A member that finished its run without calling the collective ends the
// wait of the others at once, named; a meeting it already joined completes.
TEST(LocalCommunicator, AMemberThatDepartedEndsTheWaitAtOnce) {
  LocalCommunicator communicator;
  std::vector<int64_t> group = {0, 1, 2};
  std::vector<std::string> errors(3);
  std::vector<char> joined(3); // written by the threads at once
  auto met = [](llvm::Expected<std::vector<TensorRef>> all) {
    if (all)
      return true;
    llvm::consumeError(all.takeError());
    return false;
  };
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int64_t d : {0, 1, 2})
    threads.emplace_back([&, d] {
      joined[d] = met(communicator.exchange("first", "'spmd.all_gather'", d,
                                            group, scalar(d)));
      if (d == 2) {
        communicator.depart(2);
        return;
      }
      llvm::Expected<std::vector<TensorRef>> all = communicator.exchange(
          "second", "'spmd.all_reduce'", d, group, scalar(d));
      if (!all)
        errors[d] = llvm::toString(all.takeError());
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(joined, std::vector<char>(3, true));
  for (int64_t d : {0, 1})
    EXPECT_NE(errors[d].find("'spmd.all_reduce' on device " +
                             std::to_string(d) +
                             " cannot complete: device 2 of its group finished "
                             "its run without calling it"),
              std::string::npos)
        << errors[d];
  // The next run on the same communicator (MPI's serves many) starts anew.
  communicator.endRun();
  threads.clear();
  for (int64_t d : {0, 1, 2})
    threads.emplace_back([&, d] {
      joined[d] = met(communicator.exchange("next run", "'spmd.all_gather'", d,
                                            group, scalar(d)));
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(joined, std::vector<char>(3, true));
}

} // namespace

namespace {

// One pool for many runs of different sizes (a LoadedProgram's): each run gets
// its devices' collectives right, and the pool starts no thread past its
// workers.
// A pool whose first run needed no helper thread starts one for its next
// run: the new helper must wait for that run, not take the earlier run's
// (finished, cleared) workers for its own. Reproducer of a segfault seen
// under load in CI; each round is a fresh chance at the race.
TEST(DevicePool, AHelperStartedLaterWaitsForItsRun) {
  for (int round = 0; round < 300; ++round) {
    DevicePool pool;
    std::atomic<int64_t> ran{0};
    ASSERT_FALSE(bool(pool.run(1, 1, [&](int64_t) { ++ran; })));
    ASSERT_FALSE(bool(pool.run(2, 2, [&](int64_t) { ++ran; })));
    ASSERT_EQ(ran.load(), 3);
  }
}

TEST(DevicePool, RunsAgainWithOtherDeviceCounts) {
  DevicePool pool;
  std::set<std::thread::id> threads;
  std::mutex mutex;
  for (int64_t devices : {1, 5, 3, 100, 2, 100}) {
    LocalCommunicator communicator;
    std::vector<int64_t> group;
    for (int64_t d = 0; d < devices; ++d)
      group.push_back(d);
    std::vector<int64_t> sums(devices);
    llvm::Error error = pool.run(devices, 2, [&](int64_t d) {
      {
        std::lock_guard<std::mutex> guard(mutex);
        threads.insert(std::this_thread::get_id());
      }
      llvm::Expected<TensorRef> sum = communicator.allReduce(
          "s", "test", d, group, scalar(d + 1), ReductionKind::Sum);
      ASSERT_TRUE(bool(sum)) << llvm::toString(sum.takeError());
      sums[d] = (*sum)->getInt(0);
    });
    ASSERT_FALSE(bool(error)) << llvm::toString(std::move(error));
    EXPECT_EQ(sums, std::vector<int64_t>(devices, devices * (devices + 1) / 2));
  }
  // This thread and one helper.
  EXPECT_LE(threads.size(), 2u);
}

} // namespace
