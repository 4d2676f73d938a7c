//===- queries_process.cpp - The runtime queries and run()'s input checks -===//
//
// Under mpirun, each process prints what torch_xla's runtime queries
// answer (`queries`), or runs a program whose input is wrong on the last
// process only (`bad-input`) and prints the error and how long it took.
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include <chrono>
#include <cstdio>
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

int runWithABadInputOnTheLastProcess() {
  int64_t devices = spmd::global_runtime_device_count();
  std::vector<int64_t> ids(devices);
  std::iota(ids.begin(), ids.end(), 0);
  spmd::Mesh mesh(ids, {devices}, {"x"});
  auto program = spmd::Program::fromString(kExp);
  if (!program.ok() ||
      !program->mark_sharding(program->argument(0), mesh, {"x"}).ok())
    return 1;
  bool last = spmd::process_index() + 1 == spmd::world_size();
  spmd::HostTensor input(spmd::DType::F32, {last ? 8 : 8, last ? 5 : 4});
  auto start = std::chrono::steady_clock::now();
  auto out = program->run({input});
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  std::printf("process %lld: %.1f s: %s\n", (long long)spmd::process_index(),
              seconds, out.ok() ? "ran" : out.status().ToString().c_str());
  return out.ok() ? 1 : 0;
}
} // namespace

int main(int argc, char **argv) {
  if (argc == 2 && std::strcmp(argv[1], "queries") == 0) {
    printQueries();
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "bad-input") == 0)
    return runWithABadInputOnTheLastProcess();
  std::fprintf(stderr, "usage: %s queries|bad-input\n", argv[0]);
  return 2;
}
