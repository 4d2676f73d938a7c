//===- CpuPath.h - Kernels compiled per instruction set ---------*- C++ -*-===//
//
// Hot kernels are compiled for several x86-64 instruction sets (the
// baseline, AVX2 with FMA, AVX-512) and one of them, the "CPU path", is
// chosen once when the runtime loads: the best the running CPU supports,
// unless SPMD_CPU_PATH (or spmd-run --cpu-path) names another. One binary
// stays portable, and the tests can run every path the machine has.
//
// Two mechanisms give the copies:
// - loops of the runtime's own code run through `onCpuPath(body)`, which
//   inlines `body` whole into a function compiled for the path;
// - Eigen, which picks its vector width when compiled, is built into one
//   shared library per path (runtime/gemm), each with its own private copy
//   of Eigen's templates.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_CPUPATH_H
#define SPMD_RUNTIME_CPUPATH_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace spmd::runtime {

enum class CpuPath : uint8_t { Baseline, Avx2, Avx512 };

/// "baseline", "avx2" or "avx512".
llvm::StringRef cpuPathName(CpuPath path);
std::optional<CpuPath> parseCpuPath(llvm::StringRef name);

/// Whether the running CPU (and OS) can run code compiled for `path`, and
/// whether this build has that path.
bool cpuPathSupported(CpuPath path);

/// The best path this CPU supports.
CpuPath bestCpuPath();

/// The path kernels use: chosen on first use, from SPMD_CPU_PATH when set
/// (an unsupported or unknown name is reported on stderr and the best path
/// used instead), else the best.
CpuPath cpuPath();

/// Makes `path` the one kernels use from now on (spmd-run --cpu-path);
/// false when this CPU cannot run it.
bool setCpuPath(CpuPath path);

namespace detail {
#if defined(__x86_64__) && defined(__GNUC__)
// `flatten` inlines every call `body` makes (where the code is visible), so
// the loops it reaches are compiled for the target of this function.
template <typename F>
__attribute__((target("avx2,fma"), flatten)) void runAvx2(F &body) {
  body();
}
template <typename F>
__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma"),
               flatten)) void
runAvx512(F &body) {
  body();
}
#define SPMD_HAS_CPU_PATHS 1
#endif
} // namespace detail

/// Runs `body` compiled for the current CPU path.
template <typename F> void onCpuPath(F &&body) {
#ifdef SPMD_HAS_CPU_PATHS
  switch (cpuPath()) {
  case CpuPath::Avx512:
    return detail::runAvx512(body);
  case CpuPath::Avx2:
    return detail::runAvx2(body);
  case CpuPath::Baseline:
    break;
  }
#endif
  body();
}

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_CPUPATH_H
