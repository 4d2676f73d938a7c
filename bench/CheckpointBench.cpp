//===- CheckpointBench.cpp - Checkpoint bandwidth against cp --------------===//
//
//   spmd-checkpoint-bench [DIR] [MIB]
//
// Saves MIB mebibytes of f32 tensors (default 512) sharded over a 2x4 mesh
// into DIR (default a folder under /tmp), loads them onto a 4x2 mesh with
// another spec, and copies the same files with `cp` on the same disk, in
// the same run. A save syncs its files to the disk before it returns, so it
// is compared with `cp` followed by `sync` of the copies (and, for
// reference, with `cp` alone, which leaves the bytes in the page cache).
// Prints each bandwidth and the ratios; each figure is the best of 3.
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#include <unistd.h>

namespace fs = std::filesystem;

namespace {
double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

template <typename Fn> double bestOf3(Fn fn) {
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, seconds(start));
  }
  return best;
}

void run(const std::string &command) {
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "failed: %s\n", command.c_str());
    std::exit(1);
  }
}

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0)
      return line.substr(line.find(':') + 2);
  return "unknown CPU";
}
} // namespace

int main(int argc, char **argv) {
  // The meshes' eight devices, virtual ones whatever the cores;
  // SPMD_NUM_DEVICES set by the user wins.
  setenv("SPMD_NUM_DEVICES", "8", /*overwrite=*/0);
  if (argc > 3 || (argc > 1 && argv[1][0] == '-') ||
      (argc > 2 && std::atoll(argv[2]) <= 0)) {
    std::fprintf(stderr, "usage: %s [DIR] [MIB]: saves, loads and copies MIB "
                         "(512) MiB in a folder it makes in DIR (/tmp)\n",
                 argv[0]);
    return 2;
  }
  // A folder of its own, removed at the end: DIR itself is the user's.
  std::string dir = std::string(argc > 1 ? argv[1] : "/tmp") +
                    "/spmd-checkpoint-bench-" + std::to_string(getpid());
  int64_t mib = argc > 2 ? std::atoll(argv[2]) : 512;
  std::printf("checkpoint bench on %s: %lld MiB of f32 in 8 tensors, %s\n",
              cpuModel().c_str(), (long long)mib, dir.c_str());
  fs::remove_all(dir);
  spmd::Mesh from({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4}, {"data", "model"});
  spmd::Mesh to({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2}, {"x", "y"});
  const int64_t rows = mib * 1024 * 1024 / 4 / 8 / 1024;
  std::map<std::string, spmd::ShardedTensor> tensors;
  std::map<std::string, std::pair<spmd::Mesh, spmd::PartitionSpec>> targets;
  for (int t = 0; t < 8; ++t) {
    spmd::HostTensor host(spmd::DType::F32, {rows, 1024});
    auto *values = static_cast<float *>(host.data());
    for (int64_t i = 0; i < host.numel(); ++i)
      values[i] = float(i % 1000) * 0.25f + t;
    std::string name = "layer" + std::to_string(t);
    auto sharded = spmd::mark_sharding(host, from, {"data", "model"});
    if (!sharded.ok()) {
      std::fprintf(stderr, "%s\n", sharded.status().ToString().c_str());
      return 1;
    }
    tensors.emplace(name, *std::move(sharded));
    targets.emplace(name, std::make_pair(to, spmd::PartitionSpec{"y", "x"}));
  }
  double bytes = double(mib) * 1024 * 1024;
  std::string checkpoint = dir + "/checkpoint", copy = dir + "/copy";

  double save = bestOf3([&] {
    if (absl::Status status = spmd::save_checkpoint(checkpoint, tensors);
        !status.ok()) {
      std::fprintf(stderr, "%s\n", status.ToString().c_str());
      std::exit(1);
    }
  });
  double load = bestOf3([&] {
    auto loaded = spmd::load_checkpoint(checkpoint, targets);
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s\n", loaded.status().ToString().c_str());
      std::exit(1);
    }
  });
  // The same files, copied by cp on the same disk (paths quoted for the
  // shell: DIR may hold spaces).
  auto quoted = [](const std::string &path) {
    std::string text = "'";
    for (char c : path)
      text += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return text + "'";
  };
  auto copyCommand = [&](bool sync) {
    std::string command = "rm -rf " + quoted(copy) + " && cp -r " +
                          quoted(checkpoint) + " " + quoted(copy);
    if (sync)
      command += " && sync -f " + quoted(copy) + "/*";
    return command;
  };
  double cpSync = bestOf3([&] { run(copyCommand(true)); });
  double cp = bestOf3([&] { run(copyCommand(false)); });

  auto rate = [&](double s) { return bytes / s / 1e9; };
  std::printf("save %.2f GB/s, cp+sync %.2f GB/s: save/cp+sync %.2f\n",
              rate(save), rate(cpSync), cpSync / save);
  std::printf("load %.2f GB/s, cp %.2f GB/s: load/cp %.2f\n", rate(load),
              rate(cp), cp / load);
  std::printf("(save/cp without sync %.2f)\n", cp / save);
  fs::remove_all(dir);
  return 0;
}
