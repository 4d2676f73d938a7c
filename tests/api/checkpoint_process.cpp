//===- checkpoint_process.cpp - One process of the checkpoint tests -------===//
//
//   spmd-checkpoint-process save DIR MESH SPEC STEP [--repeat]
//   spmd-checkpoint-process verify DIR MESH SPEC
//   spmd-checkpoint-process batches DIR MESH SPEC COUNT
//   spmd-checkpoint-process load-batches DIR MESH SPEC COUNT
//
// save: places the tensors of training step STEP on MESH as SPEC says and
// saves them in DIR, printing "saved STEP"; with --repeat, saves steps
// STEP, STEP + 1, ... until killed. verify: loads DIR onto MESH as SPEC
// says and checks that every tensor holds the bytes of one same step,
// printing "step K". batches: saves COUNT batches (checkpoint folders of
// tensors input0 and input1) in DIR; load-batches: feeds them through a
// ParallelLoader and checks each, and that this process read at most 1.1
// times the bytes of its devices' shards. MESH is AxB... (axes a, b, ...;
// device ids row-major), or with a trailing T, its ids column-major (processes
// then split the last axis); SPEC has one entry per dimension: an axis, several
// joined by
// '+' (two at most), or '-' for none. Under mpirun every process runs it;
// a DIR holding "%p" names another folder per process ("" on process 0,
// "-P" on process P), as node-local paths would.
//
//===----------------------------------------------------------------------===//

#include <spmd/spmd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

namespace {

const std::vector<
    std::pair<std::string, std::pair<spmd::DType, std::vector<int64_t>>>>
    kTensors = {{"w1", {spmd::DType::F32, {1024, 1024}}},
                {"w2", {spmd::DType::BF16, {512, 2050}}},
                {"bias", {spmd::DType::F32, {1030, 4}}}};

[[noreturn]] void fail(const std::string &message) {
  // One write, so that lines of processes sharing a terminal do not mix.
  std::string line = "process " + std::to_string(spmd::process_index()) + ": " +
                     message + "\n";
  std::fputs(line.c_str(), stderr);
  std::exit(1);
}

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);)
    parts.push_back(part);
  return parts;
}

spmd::Mesh meshOf(std::string text) {
  bool transposed = !text.empty() && text.back() == 'T';
  if (transposed)
    text.pop_back();
  std::vector<int64_t> shape;
  std::vector<std::string> names;
  for (const std::string &size : split(text, 'x')) {
    shape.push_back(std::stoll(size));
    names.push_back(std::string(1, char('a' + names.size())));
  }
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  std::vector<int64_t> ids(n);
  for (int64_t i = 0; i < n; ++i)
    ids[i] = i;
  if (transposed && shape.size() == 2)
    for (int64_t i = 0; i < n; ++i)
      ids[i] = (i % shape[1]) * shape[0] + i / shape[1];
  return spmd::Mesh(ids, shape, names);
}

spmd::PartitionSpec specOf(const std::string &text) {
  spmd::PartitionSpec spec;
  for (const std::string &entry : split(text, ',')) {
    if (entry == "-") {
      spec.push_back(spmd::None);
      continue;
    }
    std::vector<std::string> axes = split(entry, '+');
    if (axes.size() == 1)
      spec.push_back(axes[0]);
    else
      spec.push_back({spmd::Axis(axes[0]), spmd::Axis(axes[1])});
  }
  return spec;
}

/// The bytes of tensor `t` at step `step`.
uint8_t byteAt(size_t tensor, int64_t i, int64_t step) {
  return uint8_t((i * 31 + int64_t(tensor) * 7 + step) % 251);
}

spmd::HostTensor tensorAt(size_t index, int64_t step) {
  const auto &[type, shape] = kTensors[index].second;
  spmd::HostTensor t(type, shape);
  auto *bytes = static_cast<uint8_t *>(t.data());
  int64_t n = t.numel() * (type == spmd::DType::F32 ? 4 : 2);
  for (int64_t i = 0; i < n; ++i)
    bytes[i] = byteAt(index, i, step);
  return t;
}

void save(const std::string &dir, const spmd::Mesh &mesh,
          const spmd::PartitionSpec &spec, int64_t step, bool repeat) {
  do {
    std::map<std::string, spmd::ShardedTensor> tensors;
    for (size_t i = 0; i < kTensors.size(); ++i) {
      auto placed = spmd::mark_sharding(tensorAt(i, step), mesh, spec);
      if (!placed.ok())
        fail(placed.status().ToString());
      tensors.emplace(kTensors[i].first, *placed);
    }
    spmd::HostTensor stepTensor(spmd::DType::I64, {});
    *static_cast<int64_t *>(stepTensor.data()) = step;
    tensors.emplace("step", *spmd::mark_sharding(stepTensor, mesh, {}));
    if (absl::Status status = spmd::save_checkpoint(dir, tensors); !status.ok())
      fail(status.ToString());
    if (spmd::process_index() == 0)
      std::printf("saved %lld\n", (long long)step);
    std::fflush(stdout);
    ++step;
  } while (repeat);
}

void verify(const std::string &dir, const spmd::Mesh &mesh,
            const spmd::PartitionSpec &spec) {
  std::map<std::string, std::pair<spmd::Mesh, spmd::PartitionSpec>> targets{
      {"step", {mesh, {}}}};
  for (const auto &[name, what] : kTensors)
    targets.emplace(name, std::make_pair(mesh, spec));
  auto loaded = spmd::load_checkpoint(dir, targets);
  if (!loaded.ok())
    fail(loaded.status().ToString());
  auto stepTensor = loaded->at("step").to_host();
  int64_t step = *static_cast<const int64_t *>(stepTensor->data());
  for (size_t i = 0; i < kTensors.size(); ++i) {
    auto host = loaded->at(kTensors[i].first).to_host();
    if (!host.ok())
      fail(host.status().ToString());
    spmd::HostTensor want = tensorAt(i, step);
    int64_t n = want.numel() * (want.dtype() == spmd::DType::F32 ? 4 : 2);
    if (host->shape() != want.shape() ||
        std::memcmp(host->data(), want.data(), n) != 0)
      fail("tensor '" + kTensors[i].first + "' does not hold step " +
           std::to_string(step));
  }
  if (spmd::process_index() == 0)
    std::printf("step %lld\n", (long long)step);
}

/// Input i of batch k: rows of a [256, 512] f32 (i = 0) or [256] i64.
spmd::HostTensor batchInput(int i, int64_t k) {
  spmd::HostTensor t(i == 0 ? spmd::DType::F32 : spmd::DType::I64,
                     i == 0 ? std::vector<int64_t>{256, 512}
                            : std::vector<int64_t>{256});
  auto *bytes = static_cast<uint8_t *>(t.data());
  for (int64_t b = 0; b < t.numel() * (i == 0 ? 4 : 8); ++b)
    bytes[b] = byteAt(size_t(i), b, k);
  return t;
}

void saveBatches(const std::string &dir, const spmd::Mesh &mesh,
                 const spmd::PartitionSpec &spec, int64_t count) {
  for (int64_t k = 0; k < count; ++k) {
    std::map<std::string, spmd::ShardedTensor> batch;
    for (int i = 0; i < 2; ++i)
      batch.emplace(
          "input" + std::to_string(i),
          *spmd::mark_sharding(batchInput(i, k), mesh,
                               i == 0 ? spec : spmd::PartitionSpec{spec[0]}));
    char name[32];
    std::snprintf(name, sizeof name, "/batch-%03lld", (long long)k);
    if (absl::Status status = spmd::save_checkpoint(dir + name, batch);
        !status.ok())
      fail(status.ToString());
  }
}

void loadBatches(const std::string &dir, const spmd::Mesh &mesh,
                 const spmd::PartitionSpec &spec, int64_t count) {
  int64_t before = spmd::counter_value("checkpoint_bytes_read");
  auto loader = spmd::ParallelLoader::fromFolder(
      dir, {{mesh, spec}, {mesh, spmd::PartitionSpec{spec[0]}}}, 2);
  if (!loader.ok())
    fail(loader.status().ToString());
  int64_t shardBytes = 0;
  for (int64_t k = 0;; ++k) {
    auto next = loader->next();
    if (!next.ok())
      fail(next.status().ToString());
    if (!next->has_value()) {
      if (k != count)
        fail("the loader ended after " + std::to_string(k) + " batches");
      break;
    }
    for (int i = 0; i < 2; ++i) {
      const spmd::ShardedTensor &got = (**next)[i];
      for (const spmd::ShardedTensor::Shard &shard : got.local_shards()) {
        int64_t elements = 1;
        for (auto [b, e] : shard.indices)
          elements *= e - b;
        shardBytes += elements * (i == 0 ? 4 : 8);
      }
      auto host = got.to_host();
      spmd::HostTensor want = batchInput(i, k);
      if (!host.ok() || std::memcmp(host->data(), want.data(),
                                    want.numel() * (i == 0 ? 4 : 8)) != 0)
        fail("batch " + std::to_string(k) + " input " + std::to_string(i) +
             " differs");
    }
  }
  int64_t read = spmd::counter_value("checkpoint_bytes_read") - before;
  std::printf("process %lld read %lld bytes for shards of %lld bytes\n",
              (long long)spmd::process_index(), (long long)read,
              (long long)shardBytes);
  if (read > shardBytes * 11 / 10)
    fail("read more than 1.1 times its shards' bytes");
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 5)
    fail("usage: save DIR MESH SPEC STEP [--repeat] | verify DIR MESH SPEC");
  std::string mode = argv[1], dir = argv[2];
  if (size_t at = dir.find("%p"); at != std::string::npos)
    dir.replace(at, 2,
                spmd::process_index() == 0
                    ? ""
                    : "-" + std::to_string(spmd::process_index()));
  spmd::Mesh mesh = meshOf(argv[3]);
  spmd::PartitionSpec spec = specOf(argv[4]);
  if (mode == "save" && argc >= 6)
    save(dir, mesh, spec, std::stoll(argv[5]),
         argc > 6 && std::string(argv[6]) == "--repeat");
  else if (mode == "verify")
    verify(dir, mesh, spec);
  else if (mode == "batches" && argc >= 6)
    saveBatches(dir, mesh, spec, std::stoll(argv[5]));
  else if (mode == "load-batches" && argc >= 6)
    loadBatches(dir, mesh, spec, std::stoll(argv[5]));
  else
    fail("unknown mode " + mode);
  return 0;
}
