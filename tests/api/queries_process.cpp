//===- queries_process.cpp - The runtime queries and run()'s input checks -===//
//
// Under mpirun, each process prints what torch_xla's runtime queries
// answer (`queries`), or runs a program whose input is wrong on the last
// process only (`bad-input`), or whose mesh each process builds from a
// device count of its own (`other-counts`), and prints the error and how
// long it took.
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>

namespace {
const char *kExp = R"mlir(
func.func @f(%a: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %e = math.exp %a : tensor<8x4xf32>
  return %e : tensor<8x4xf32>
})mlir";

void printQueries() {
  auto memory = spmd::get_memory_info(0);
  std::printf("process %lld: world=%lld global=%lld addressable=%lld "
              "local_devices=%lld global_ordinal=%lld local_ordinal=%lld "
              "master=%d local_master=%d type=%s memory=%s\n",
              (long long)spmd::process_index(), (long long)spmd::world_size(),
              (long long)spmd::global_runtime_device_count(),
              (long long)spmd::addressable_device_count(),
              (long long)spmd::local_device_count(),
              (long long)spmd::global_ordinal(),
              (long long)spmd::local_ordinal(),
              spmd::is_master_ordinal(/*local=*/false),
              spmd::is_master_ordinal(), spmd::device_type().c_str(),
              memory.ok() && memory->bytes_limit > 0 ? "ok" : "missing");
}

/// Runs kExp on a mesh of every device, its input placed (`placed`) or
/// from the host, the last process's input of another shape if `badShape`.
int runOnEveryDevice(bool placed, bool badShape) {
  int64_t devices = spmd::global_runtime_device_count();
  std::vector<int64_t> ids(devices);
  std::iota(ids.begin(), ids.end(), 0);
  spmd::Mesh mesh(ids, {devices}, {"x"});
  auto program = spmd::Program::fromString(kExp);
  if (!program.ok())
    return 1;
  bool last = spmd::process_index() + 1 == spmd::world_size();
  spmd::HostTensor host(spmd::DType::F32, {8, last && badShape ? 5 : 4});
  spmd::Input input = host;
  if (placed) {
    auto onDevices = spmd::mark_sharding(host, mesh, {"x"});
    if (!onDevices.ok())
      return 1;
    input = *onDevices;
  } else if (!program->mark_sharding(program->argument(0), mesh, {"x"}).ok()) {
    return 1;
  }
  auto start = std::chrono::steady_clock::now();
  auto out = program->run({input});
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("process %lld: %.1f s: %s\n", (long long)spmd::process_index(),
              seconds, out.ok() ? "ran" : out.status().ToString().c_str());
  return out.ok() ? 1 : 0;
}
/// Places a tensor on a 2x2 mesh split over "x" on process 0 and over "y"
/// on the others, then gathers it.
int gatherOtherPlacements() {
  spmd::Mesh mesh({0, 1, 2, 3}, {2, 2}, {"x", "y"});
  spmd::HostTensor host(spmd::DType::F32, {16});
  auto placed =
      spmd::mark_sharding(host, mesh, {spmd::process_index() == 0 ? "x" : "y"});
  if (!placed.ok())
    return 1;
  auto start = std::chrono::steady_clock::now();
  auto whole = placed->to_host();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("process %lld: %.1f s: %s\n", (long long)spmd::process_index(),
              seconds,
              whole.ok() ? "gathered" : whole.status().ToString().c_str());
  return whole.ok() ? 1 : 0;
}
} // namespace

int main(int argc, char **argv) {
  if (argc == 2 && std::strcmp(argv[1], "queries") == 0) {
    printQueries();
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "bad-input") == 0)
    return runOnEveryDevice(/*placed=*/false, /*badShape=*/true);
  if (argc == 2 && std::strcmp(argv[1], "other-counts") == 0) {
    // Process r has r + 1 devices, so each builds another mesh.
    setenv("SPMD_NUM_DEVICES",
           std::to_string(spmd::process_index() + 1).c_str(), 1);
    return runOnEveryDevice(/*placed=*/true, /*badShape=*/false);
  }
  if (argc == 2 && std::strcmp(argv[1], "other-placements") == 0)
    return gatherOtherPlacements();
  std::fprintf(stderr,
               "usage: %s queries|bad-input|other-counts|other-placements\n",
               argv[0]);
  return 2;
}
