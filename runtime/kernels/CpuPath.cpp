//===- CpuPath.cpp - Choosing the instruction set kernels run -------------===//

#include "runtime/kernels/CpuPath.h"
#include "runtime/kernels/gemm/GemmKernels.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdlib>

namespace spmd::runtime {

llvm::StringRef cpuPathName(CpuPath path) {
  switch (path) {
  case CpuPath::Baseline:
    return "baseline";
  case CpuPath::Avx2:
    return "avx2";
  case CpuPath::Avx512:
    return "avx512";
  }
  llvm_unreachable("unknown CPU path");
}

std::optional<CpuPath> parseCpuPath(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<CpuPath>>(name)
      .Case("baseline", CpuPath::Baseline)
      .Case("avx2", CpuPath::Avx2)
      .Case("avx512", CpuPath::Avx512)
      .Default(std::nullopt);
}

bool cpuPathSupported(CpuPath path) {
  switch (path) {
  case CpuPath::Baseline:
    return true;
  case CpuPath::Avx2:
#if defined(SPMD_HAVE_CPU_PATH_AVX2) && defined(SPMD_HAS_CPU_PATHS)
    // The compiler's checks include the OS saving the wide registers.
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
  case CpuPath::Avx512:
#if defined(SPMD_HAVE_CPU_PATH_AVX512) && defined(SPMD_HAS_CPU_PATHS)
    return cpuPathSupported(CpuPath::Avx2) &&
           __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
#else
    return false;
#endif
  }
  return false;
}

CpuPath bestCpuPath() {
  for (CpuPath path : {CpuPath::Avx512, CpuPath::Avx2})
    if (cpuPathSupported(path))
      return path;
  return CpuPath::Baseline;
}

static CpuPath initialPath() {
  const char *forced = std::getenv("SPMD_CPU_PATH");
  if (!forced || !*forced)
    return bestCpuPath();
  std::optional<CpuPath> path = parseCpuPath(forced);
  if (path && cpuPathSupported(*path))
    return *path;
  CpuPath best = bestCpuPath();
  // One write: other threads (and processes under mpirun) print too.
  llvm::errs() << ("warning: SPMD_CPU_PATH=" + llvm::Twine(forced) +
                   (path ? " is not supported by this CPU"
                         : " is not one of baseline, avx2, avx512") +
                   "; using " + cpuPathName(best) + "\n")
                      .str();
  return best;
}

static std::atomic<CpuPath> &currentPath() {
  static std::atomic<CpuPath> path{initialPath()};
  return path;
}

CpuPath cpuPath() { return currentPath().load(std::memory_order_relaxed); }

bool setCpuPath(CpuPath path) {
  if (!cpuPathSupported(path))
    return false;
  currentPath().store(path, std::memory_order_relaxed);
  return true;
}

const GemmKernels &gemmKernels() {
  switch (cpuPath()) {
#ifdef SPMD_HAVE_CPU_PATH_AVX512
  case CpuPath::Avx512:
    return *spmdGemmKernelsAvx512();
#endif
#ifdef SPMD_HAVE_CPU_PATH_AVX2
  case CpuPath::Avx2:
    return *spmdGemmKernelsAvx2();
#endif
  default:
    return *spmdGemmKernelsBaseline();
  }
}

} // namespace spmd::runtime
