//===- Machine.h - What this process may run on -----------------*- C++ -*-===//
//
// The cores this process may run on, as its CPU affinity says (a cpuset, a
// container's limit, `taskset`), not as many as the machine has: every
// default that shares out cores (devices, threads per device, workers)
// counts them here.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_SUPPORT_MACHINE_H
#define SPMD_SUPPORT_MACHINE_H

#include <cstdint>

namespace spmd {

/// The cores the process may run on (its CPU affinity), at least 1.
int64_t availableCores();

} // namespace spmd

#endif // SPMD_SUPPORT_MACHINE_H
