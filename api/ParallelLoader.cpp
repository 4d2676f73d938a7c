//===- ParallelLoader.cpp - Batches placed on the devices ahead of use ----===//
//
// One background thread per loader produces batches (takes one from the
// source, places its inputs) while at most `prefetch` placed batches wait;
// next() takes the oldest. The thread exchanges nothing with other
// processes (it runs beside programs that do): under mpirun each process
// places its own shards, and an error is its own.
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"
#include "Internal.h"

#include "runtime/exec/Npy.h"
#include "support/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "fmt/format.h"
#include "fmt/ranges.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <thread>

namespace spmd {

using PlacedBatch = absl::StatusOr<std::optional<std::vector<ShardedTensor>>>;

struct ParallelLoader::State {
  /// Takes the next batch from the source and places it.
  std::function<PlacedBatch()> produce;
  size_t prefetch = 2;
  /// The inputs of the first batch, which every other must match.
  std::vector<std::pair<DType, std::vector<int64_t>>> firstInputs;
  int64_t produced = 0;

  std::mutex mutex;
  std::condition_variable changed;
  std::deque<PlacedBatch> ready;
  bool stopping = false;
  /// next() returned the end of the data or an error.
  bool ended = false;
  double waited = 0;
  int64_t returned = 0;
  std::thread worker;

  /// A loader producing with `produce`, its thread started.
  static absl::StatusOr<ParallelLoader>
  start(std::function<PlacedBatch()> produce, int64_t prefetch);
  void run();
  PlacedBatch checked(PlacedBatch batch);
  ~State() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    changed.notify_all();
    if (worker.joinable())
      worker.join();
  }
};

/// `batch`, or an error if its inputs differ from the first batch's.
PlacedBatch ParallelLoader::State::checked(PlacedBatch batch) {
  ++produced;
  if (!batch.ok() || !batch->has_value())
    return batch;
  std::vector<std::pair<DType, std::vector<int64_t>>> inputs;
  for (const ShardedTensor &t : **batch)
    inputs.emplace_back(t.dtype(), t.shape());
  if (produced == 1)
    firstInputs = inputs;
  if (inputs == firstInputs)
    return batch;
  auto describe = [](const auto &list) {
    std::vector<std::string> parts;
    for (const auto &[type, shape] : list)
      parts.push_back(fmt::format(
          "{}[{}]", runtime::elementTypeName(detail::toRuntime(type)).str(),
          fmt::join(shape, ", ")));
    return fmt::format("({})", fmt::join(parts, ", "));
  };
  return absl::InvalidArgumentError(
      fmt::format("batch {} holds {}, the first batch {}", produced - 1,
                  describe(inputs), describe(firstInputs)));
}

void ParallelLoader::State::run() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return stopping || ready.size() < prefetch; });
      if (stopping)
        return;
    }
    PlacedBatch batch = std::nullopt;
    try {
      batch = checked(produce());
    } catch (const std::exception &e) {
      batch = absl::InternalError(
          fmt::format("batch {}: the source threw: {}", produced, e.what()));
    } catch (...) {
      batch = absl::InternalError(
          fmt::format("batch {}: the source threw", produced));
    }
    bool last = !batch.ok() || !batch->has_value();
    {
      std::lock_guard<std::mutex> lock(mutex);
      ready.push_back(std::move(batch));
    }
    changed.notify_all();
    if (last)
      return;
  }
}

ParallelLoader::ParallelLoader(std::unique_ptr<State> state)
    : state_(std::move(state)) {}
ParallelLoader::ParallelLoader(ParallelLoader &&) noexcept = default;
ParallelLoader &ParallelLoader::operator=(ParallelLoader &&) noexcept = default;
ParallelLoader::~ParallelLoader() = default;

absl::StatusOr<ParallelLoader>
ParallelLoader::State::start(std::function<PlacedBatch()> produce,
                             int64_t prefetch) {
  if (prefetch < 1)
    return absl::InvalidArgumentError(
        fmt::format("prefetch is {}; it must be at least 1", prefetch));
  // MPI, if any, starts on this thread: the loader's only asks its rank.
  (void)world_size();
  auto state = std::make_unique<State>();
  state->produce = std::move(produce);
  state->prefetch = prefetch;
  state->worker = std::thread([s = state.get()] { s->run(); });
  return ParallelLoader(std::move(state));
}

/// Whether every mesh of `sharding` can be used, as mark_sharding asks.
static absl::Status checkMeshes(const ParallelLoader::InputSharding &sharding) {
  for (auto [i, input] : llvm::enumerate(sharding))
    if (absl::StatusOr<DeviceMesh> mesh = detail::deviceMesh(input.first);
        !mesh.ok())
      return absl::Status(mesh.status().code(),
                          fmt::format("input_sharding {}: {}", i,
                                      std::string(mesh.status().message())));
  return absl::OkStatus();
}

absl::StatusOr<ParallelLoader>
ParallelLoader::create(Source source, InputSharding input_sharding,
                       int64_t prefetch) {
  if (!source)
    return absl::InvalidArgumentError("the batch source is empty");
  if (absl::Status meshes = checkMeshes(input_sharding); !meshes.ok())
    return meshes;
  auto produce = [source = std::move(source),
                  sharding = std::move(input_sharding),
                  count = int64_t(0)]() mutable -> PlacedBatch {
    int64_t index = count++;
    absl::StatusOr<std::optional<Batch>> batch = source();
    if (!batch.ok())
      return absl::Status(batch.status().code(),
                          fmt::format("batch {}: the source failed: {}", index,
                                      std::string(batch.status().message())));
    if (!batch->has_value())
      return std::nullopt;
    if ((*batch)->size() != sharding.size())
      return absl::InvalidArgumentError(
          fmt::format("batch {} has {} inputs, input_sharding {}", index,
                      (*batch)->size(), sharding.size()));
    std::vector<ShardedTensor> placed;
    for (size_t i = 0; i < sharding.size(); ++i) {
      absl::StatusOr<ShardedTensor> t =
          mark_sharding((**batch)[i], sharding[i].first, sharding[i].second);
      if (!t.ok())
        return absl::Status(t.status().code(),
                            fmt::format("batch {}, input {}: {}", index, i,
                                        std::string(t.status().message())));
      placed.push_back(std::move(*t));
    }
    return placed;
  };
  return State::start(std::move(produce), prefetch);
}

/// The inputs of the batch file `path`, placed; only this process's shards
/// are read.
static PlacedBatch
placeBatchFile(const std::string &path,
               const ParallelLoader::InputSharding &sharding) {
  if (llvm::StringRef(path).ends_with(".npy")) {
    if (sharding.size() != 1)
      return absl::InvalidArgumentError(
          fmt::format("{}: a .npy batch holds one input, input_sharding {}",
                      path, sharding.size()));
    // Mapped, not read: only the pages of this process's shards are.
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
        readRegularFile(path, std::numeric_limits<int64_t>::max(), ".npy file");
    if (!file)
      return absl::NotFoundError(
          fmt::format("{}: {}", path, llvm::toString(file.takeError())));
    llvm::Expected<runtime::NpyView> view =
        runtime::parseNpyHeader((*file)->getBuffer(), path);
    if (!view)
      return detail::toStatus(view.takeError());
    absl::StatusOr<ShardedTensor> placed =
        detail::place(view->data, view->type, view->shape, sharding[0].first,
                      sharding[0].second);
    if (!placed.ok())
      return placed.status();
    return std::vector<ShardedTensor>{*placed};
  }
  detail::LoadTargets targets;
  for (size_t i = 0; i < sharding.size(); ++i)
    targets.emplace("input" + std::to_string(i), sharding[i]);
  absl::StatusOr<std::map<std::string, ShardedTensor>> loaded =
      detail::loadOnThisProcess(path, targets);
  if (!loaded.ok())
    return loaded.status();
  std::vector<ShardedTensor> inputs;
  for (size_t i = 0; i < sharding.size(); ++i)
    inputs.push_back(loaded->at("input" + std::to_string(i)));
  return inputs;
}

absl::StatusOr<ParallelLoader>
ParallelLoader::fromFolder(const std::string &dir, InputSharding input_sharding,
                           int64_t prefetch) {
  if (absl::Status meshes = checkMeshes(input_sharding); !meshes.ok())
    return meshes;
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = it->path();
    if (name.ends_with(".safetensors") || name.ends_with(".npy") ||
        llvm::sys::fs::is_directory(name))
      files.push_back(name.str());
  }
  if (ec)
    return absl::Status(detail::fileErrorCode(dir, /*folder=*/true),
                        fmt::format("cannot list the batch folder '{}': {}",
                                    dir, ec.message()));
  if (files.empty())
    return absl::NotFoundError(fmt::format(
        "the batch folder '{}' holds no batch (.safetensors or .npy file, "
        "or folder)",
        dir));
  llvm::sort(files);
  auto produce = [files = std::move(files),
                  sharding = std::move(input_sharding),
                  next = size_t(0)]() mutable -> PlacedBatch {
    if (next == files.size())
      return std::nullopt;
    return placeBatchFile(files[next++], sharding);
  };
  return State::start(std::move(produce), prefetch);
}

PlacedBatch ParallelLoader::next() {
  if (!state_)
    return absl::FailedPreconditionError("the loader was moved from");
  State &s = *state_;
  if (s.ended)
    return std::nullopt;
  auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(s.mutex);
  s.changed.wait(lock, [&] { return !s.ready.empty(); });
  PlacedBatch batch = std::move(s.ready.front());
  s.ready.pop_front();
  s.waited +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  lock.unlock();
  s.changed.notify_all();
  if (!batch.ok() || !batch->has_value())
    s.ended = true;
  else
    ++s.returned;
  return batch;
}

double ParallelLoader::wait_seconds() const {
  return state_ ? state_->waited : 0;
}
int64_t ParallelLoader::batches() const {
  return state_ ? state_->returned : 0;
}

} // namespace spmd
