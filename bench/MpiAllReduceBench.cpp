//===- MpiAllReduceBench.cpp - Our all-reduce across processes vs MPI -----===//
//
//   mpirun -np 2 spmd-mpi-allreduce-bench [MiB] [rounds]
//
// An all-reduce (sum, f32) of MiB mebibytes (default 64) across the
// processes, one device each: through MpiCommunicator (as a partitioned
// program's spmd.all_reduce runs it) and through a bare MPI_Allreduce of
// the same bytes, in the same run, alternating; rank 0 prints the median
// times and their ratio (bare / ours: 1.0 means as fast as MPI).
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/MpiCommunicator.h"

#include <mpi.h>

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace spmd;
using namespace spmd::runtime;

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  int64_t mib = argc > 1 ? std::atoll(argv[1]) : 64;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 15;
  MpiWorld *world = MpiWorld::get();
  if (!world || world->size() < 2) {
    fmt::print(stderr, "run under mpirun -np 2 (or more)\n");
    return 2;
  }
  int64_t processes = world->size(), rank = world->rank();
  int64_t elements = mib * (1 << 20) / 4;

  llvm::Expected<DeviceMesh> mesh = DeviceMesh::create({"x"}, {processes}, {});
  if (!mesh) {
    fmt::print(stderr, "{}\n", llvm::toString(mesh.takeError()));
    return 1;
  }
  MpiCommunicator communicator(*world);
  llvm::SmallVector<AxisIndex> axes = {0};
  if (llvm::Error err = communicator.prepare(*mesh, {axes})) {
    fmt::print(stderr, "{}\n", llvm::toString(std::move(err)));
    return 1;
  }
  llvm::SmallVector<int64_t> group = mesh->groupOf(rank, axes);
  const std::string what = "bench all_reduce";
  Collective allReduce{CollectiveKind::AllReduce};

  auto input = std::make_shared<HostBuffer>(ElementType::F32,
                                            std::vector<int64_t>{elements});
  for (int64_t i = 0; i < elements; ++i)
    input->as<float>()[i] = float((i + rank) % 7);
  std::vector<float> bareOut(elements);

  std::vector<double> ours, bare;
  for (int r = 0; r < rounds + 1; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    auto start = std::chrono::steady_clock::now();
    CollectiveCall call{
        "bench#" + std::to_string(r), what, rank, group, *mesh, axes};
    llvm::Expected<TensorRef> out = communicator.run(call, allReduce, input);
    if (!out) {
      fmt::print(stderr, "{}\n", llvm::toString(out.takeError()));
      return 1;
    }
    double oursMs = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    MPI_Barrier(MPI_COMM_WORLD);
    start = std::chrono::steady_clock::now();
    MPI_Allreduce(input->data(), bareOut.data(), int(elements), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
    double bareMs = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    if (r == 0) { // warm-up; and the two must agree
      if (std::memcmp((*out)->data(), bareOut.data(), elements * 4) != 0 &&
          processes == 2) {
        fmt::print(stderr, "results differ from MPI_Allreduce\n");
        return 1;
      }
      continue;
    }
    ours.push_back(oursMs);
    bare.push_back(bareMs);
  }
  double oursMedian = median(ours), bareMedian = median(bare);
  auto traffic = communicator.traffic();
  int64_t bytes = traffic.count(what) ? traffic[what].bytes : 0;
  if (rank == 0)
    fmt::print("all_reduce {} MiB f32 over {} processes: spmd {:.2f} ms, "
               "MPI_Allreduce {:.2f} ms, ratio (MPI / spmd) {:.2f}; "
               "{} bytes sent per call by rank 0 (analytic 2(P-1)/P: {})\n",
               mib, processes, oursMedian, bareMedian, bareMedian / oursMedian,
               bytes / (rounds + 1),
               2 * (processes - 1) * elements * 4 / processes);
  return 0;
}
