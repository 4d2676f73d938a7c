//===- Machine.cpp - What this process may run on -------------------------===//

#include "support/Machine.h"

#include <algorithm>
#include <sched.h>
#include <thread>

int64_t spmd::availableCores() {
  cpu_set_t cores;
  if (sched_getaffinity(0, sizeof(cores), &cores) == 0)
    return std::max(1, CPU_COUNT(&cores));
  // No affinity to read (more CPUs than a cpu_set_t holds): the machine's.
  return std::max<int64_t>(1, std::thread::hardware_concurrency());
}
