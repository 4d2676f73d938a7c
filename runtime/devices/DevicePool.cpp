//===- DevicePool.cpp - Devices multiplexed over a few threads ------------===//

#include "runtime/devices/DevicePool.h"
#include "runtime/exec/HostBuffer.h"

#include "support/Machine.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SPMD_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPMD_ASAN_FIBERS 1
#endif
#endif
#ifdef SPMD_ASAN_FIBERS
#include <sanitizer/common_interface_defs.h>
#endif

namespace spmd::runtime {

namespace {

using Clock = std::chrono::steady_clock;

// Reserved, not committed: a device touches the pages it uses. As large
// as a thread's default stack, since kernels (Eigen's) may put scratch
// blocks on it.
constexpr size_t kStackBytes = size_t(8) << 20;

class Wakeups;
struct Worker;

struct Fiber {
  int64_t device = 0;
  Worker *worker = nullptr;
  ucontext_t context;
  char *mapping = nullptr; // guard page, then the stack
  size_t mappingBytes = 0;
  bool started = false, finished = false;
  // The device's memory scope while another device has its worker.
  MemoryScope memory;
  // Set while the device waits in waitForDevices.
  bool waiting = false;
  std::mutex *waitMutex = nullptr;
  llvm::function_ref<bool()> ready;
  Clock::time_point deadline;
#ifdef SPMD_ASAN_FIBERS
  void *fakeStack = nullptr;
#endif

  char *stackBottom() const { return mapping + getpagesize(); }
  size_t stackBytes() const { return mappingBytes - getpagesize(); }
};

struct Worker {
  Wakeups *wakeups = nullptr;
  std::vector<Fiber *> fibers;
  ucontext_t context;
  llvm::function_ref<void(int64_t)> body;
#ifdef SPMD_ASAN_FIBERS
  const void *stackBottom = nullptr;
  size_t stackBytes = 0;
  void *fakeStack = nullptr;
#endif
};

/// Wakes a run's idle workers when a device may have become ready.
class Wakeups {
public:
  void wake() {
    {
      std::lock_guard<std::mutex> guard(mutex);
      ++epoch;
    }
    woken.notify_all();
  }
  uint64_t currentEpoch() {
    std::lock_guard<std::mutex> guard(mutex);
    return epoch;
  }
  void sleepUntil(uint64_t seen, Clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mutex);
    woken.wait_until(lock, deadline, [&] { return epoch != seen; });
  }

private:
  std::mutex mutex;
  std::condition_variable woken;
  uint64_t epoch = 0;
};

thread_local Fiber *currentFiber = nullptr;

void switchToFiber(Worker &worker, Fiber &fiber) {
  currentFiber = &fiber;
  MemoryScope::setCurrent(std::move(fiber.memory));
#ifdef SPMD_ASAN_FIBERS
  __sanitizer_start_switch_fiber(&worker.fakeStack, fiber.stackBottom(),
                                 fiber.stackBytes());
#endif
  swapcontext(&worker.context, &fiber.context);
#ifdef SPMD_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(worker.fakeStack, nullptr, nullptr);
#endif
  currentFiber = nullptr;
  fiber.memory = MemoryScope::current();
  MemoryScope::setCurrent({});
}

/// Back to the worker; returns when the worker resumes this fiber.
void switchToWorker(Fiber &fiber) {
#ifdef SPMD_ASAN_FIBERS
  Worker &worker = *fiber.worker;
  __sanitizer_start_switch_fiber(&fiber.fakeStack, worker.stackBottom,
                                 worker.stackBytes);
#endif
  swapcontext(&fiber.context, &fiber.worker->context);
#ifdef SPMD_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(fiber.fakeStack, &worker.stackBottom,
                                  &worker.stackBytes);
#endif
}

/// A fiber's first frame; makecontext passes the pointer as two ints.
void fiberMain(unsigned high, unsigned low) {
  auto *fiber = reinterpret_cast<Fiber *>((uintptr_t(high) << 32) | low);
#ifdef SPMD_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(nullptr, &fiber->worker->stackBottom,
                                  &fiber->worker->stackBytes);
#endif
  fiber->worker->body(fiber->device);
  fiber->finished = true;
#ifdef SPMD_ASAN_FIBERS
  // This stack is left for good: ASan may drop its fake frames.
  __sanitizer_start_switch_fiber(nullptr, fiber->worker->stackBottom,
                                 fiber->worker->stackBytes);
#endif
  // Returning continues at uc_link, the worker's context.
}

/// Runs the worker's devices until all have finished: each ready device in
/// turn; when none is ready, sleeps until a device is notified or the
/// nearest deadline of a waiting one.
void runWorker(Worker &worker) {
  size_t left = worker.fibers.size();
  while (left) {
    uint64_t seen = worker.wakeups->currentEpoch();
    bool ran = false;
    Clock::time_point next = Clock::time_point::max();
    for (Fiber *fiber : worker.fibers) {
      if (fiber->finished)
        continue;
      if (fiber->waiting) {
        bool ready;
        {
          std::lock_guard<std::mutex> guard(*fiber->waitMutex);
          ready = fiber->ready();
        }
        if (!ready && Clock::now() < fiber->deadline) {
          next = std::min(next, fiber->deadline);
          continue;
        }
      }
      if (!fiber->started) {
        fiber->started = true;
        getcontext(&fiber->context);
        fiber->context.uc_stack.ss_sp = fiber->stackBottom();
        fiber->context.uc_stack.ss_size = fiber->stackBytes();
        fiber->context.uc_link = &worker.context;
        auto address = reinterpret_cast<uintptr_t>(fiber);
        makecontext(&fiber->context, reinterpret_cast<void (*)()>(&fiberMain),
                    2, unsigned(address >> 32), unsigned(address));
      }
      switchToFiber(worker, *fiber);
      ran = true;
      if (fiber->finished)
        --left;
    }
    // Every device left waits, each with a deadline; a second at most
    // keeps a clock's far future out of the wait.
    if (!ran && left)
      worker.wakeups->sleepUntil(
          seen, std::min(next, Clock::now() + std::chrono::seconds(1)));
  }
}

} // namespace

int64_t defaultDeviceWorkers(int64_t numDevices) {
  return std::clamp<int64_t>(availableCores(), 1,
                             std::max<int64_t>(numDevices, 1));
}

/// Stacks and helper threads kept between runs. Stacks past the first
/// kCachedStacks are returned after each run: thousands of devices would
/// otherwise keep the pages they touched.
struct DevicePool::State {
  static constexpr size_t kCachedStacks = 64;

  std::mutex running; // one run at a time
  std::vector<char *> stacks;

  // The current run's workers, for the helper threads.
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<Worker> *workers = nullptr;
  uint64_t generation = 0;
  int64_t pending = 0;
  bool stop = false;
  std::vector<std::thread> helpers;

  ~State() {
    {
      std::lock_guard<std::mutex> guard(mutex);
      stop = true;
    }
    changed.notify_all();
    for (std::thread &helper : helpers)
      helper.join();
    for (char *stack : stacks)
      munmap(stack, kStackBytes + getpagesize());
  }

  /// Helper `index` runs worker index + 1 of each run after generation
  /// `seen` that has one. A helper created for a later run must not take
  /// the generation of an earlier one for its own: it would read that
  /// run's workers, already cleared.
  void helperLoop(size_t index, uint64_t seen) {
    while (true) {
      std::vector<Worker> *run;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return stop || generation != seen; });
        if (stop)
          return;
        seen = generation;
        run = workers;
      }
      if (index + 1 < run->size())
        runWorker((*run)[index + 1]);
      {
        std::lock_guard<std::mutex> guard(mutex);
        --pending;
      }
      changed.notify_all();
    }
  }
};

DevicePool::DevicePool() : state(std::make_unique<State>()) {}
DevicePool::~DevicePool() = default;

llvm::Error DevicePool::run(int64_t numDevices, int64_t workers,
                            llvm::function_ref<void(int64_t)> body) {
  std::lock_guard<std::mutex> running(state->running);
  workers = std::clamp<int64_t>(workers, 1, std::max<int64_t>(numDevices, 1));
  size_t page = getpagesize();
  auto release = [&] {
    while (state->stacks.size() > State::kCachedStacks) {
      munmap(state->stacks.back(), kStackBytes + page);
      state->stacks.pop_back();
    }
  };
  while (state->stacks.size() < size_t(numDevices)) {
    void *mapping = mmap(nullptr, kStackBytes + page, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapping == MAP_FAILED) {
      int error = errno;
      int64_t device = state->stacks.size();
      release();
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("cannot reserve {0} bytes of stack for device {1} "
                        "of {2}: {3}",
                        kStackBytes + page, device, numDevices,
                        std::strerror(error)));
    }
    // A device that overflows its stack faults here instead of writing
    // into another's.
    mprotect(mapping, page, PROT_NONE);
    state->stacks.push_back(static_cast<char *>(mapping));
  }

  Wakeups wakeups;
  std::vector<Worker> pooled(workers);
  for (Worker &worker : pooled) {
    worker.wakeups = &wakeups;
    worker.body = body;
  }
  std::vector<Fiber> fibers(numDevices);
  // Device d on worker d % workers: neighbours in a group run on
  // different workers, so a group's work spreads over the cores.
  for (int64_t device = 0; device < numDevices; ++device) {
    Fiber &fiber = fibers[device];
    fiber.device = device;
    fiber.mapping = state->stacks[device];
    fiber.mappingBytes = kStackBytes + page;
    fiber.worker = &pooled[device % workers];
    fiber.worker->fibers.push_back(&fiber);
  }
  while (state->helpers.size() + 1 < size_t(workers)) {
    uint64_t current;
    {
      std::lock_guard<std::mutex> guard(state->mutex);
      current = state->generation;
    }
    state->helpers.emplace_back(
        [this, index = state->helpers.size(), current] {
          state->helperLoop(index, current);
        });
  }
  {
    std::lock_guard<std::mutex> guard(state->mutex);
    state->workers = &pooled;
    state->pending = state->helpers.size();
    ++state->generation;
  }
  state->changed.notify_all();
  runWorker(pooled[0]);
  {
    std::unique_lock<std::mutex> lock(state->mutex);
    state->changed.wait(lock, [&] { return state->pending == 0; });
    state->workers = nullptr;
  }
  release();
  return llvm::Error::success();
}

llvm::Error runOnDevicePool(int64_t numDevices, int64_t workers,
                            llvm::function_ref<void(int64_t)> body) {
  DevicePool pool;
  return pool.run(numDevices, workers, body);
}

bool waitForDevices(std::unique_lock<std::mutex> &lock,
                    std::condition_variable &changed,
                    std::chrono::milliseconds timeout,
                    llvm::function_ref<bool()> ready) {
  Fiber *fiber = currentFiber;
  if (!fiber)
    return changed.wait_for(lock, timeout, ready);
  if (ready())
    return true;
  fiber->waiting = true;
  fiber->waitMutex = lock.mutex();
  fiber->ready = ready;
  fiber->deadline = Clock::now() + timeout;
  lock.unlock();
  switchToWorker(*fiber);
  lock.lock();
  fiber->waiting = false;
  return ready();
}

int64_t currentPoolDevice() { return currentFiber ? currentFiber->device : -1; }

void notifyDevices(std::condition_variable &changed) {
  changed.notify_all();
  if (Fiber *fiber = currentFiber)
    fiber->worker->wakeups->wake();
}

} // namespace spmd::runtime
