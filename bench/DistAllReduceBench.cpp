//===- DistAllReduceBench.cpp - spmd::dist::all_reduce's time -------------===//
//
//   SPMD_NUM_DEVICES=1 mpirun -np 2 spmd-dist-allreduce-bench [MiB] [rounds]
//
// An all-reduce (sum, f32) of MiB mebibytes (default 64) through the public
// spmd::dist API, each process's devices in one spmd::spawn; rank 0 prints
// the median time of `rounds` (default 15) after a warm-up, as
// "dist all_reduce: <MiB> MiB median <s> s". bench/dist_vs_gloo.py runs it
// against torch.distributed's gloo backend in the same run.
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  int64_t mib = argc > 1 ? std::atoll(argv[1]) : 64;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 15;
  int64_t elements = mib * (1 << 20) / 4;
  std::vector<double> times;
  absl::Status status = spmd::spawn([&](int64_t rank) {
    spmd::HostTensor t(spmd::DType::F32, {elements});
    float *data = static_cast<float *>(t.data());
    for (int64_t i = 0; i < elements; ++i)
      data[i] = float(rank + i % 7);
    for (int round = 0; round <= rounds; ++round) {
      if (!spmd::dist::barrier().ok())
        return;
      auto start = std::chrono::steady_clock::now();
      if (!spmd::dist::all_reduce(t).ok())
        return;
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      if (round > 0 && rank == 0) // round 0 warms up
        times.push_back(seconds);
    }
  });
  if (!status.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    std::printf("dist all_reduce: %lld MiB median %.6f s\n", (long long)mib,
                times[times.size() / 2]);
  }
  return 0;
}
