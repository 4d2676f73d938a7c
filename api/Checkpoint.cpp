//===- Checkpoint.cpp - Saving sharded tensors ----------------------------===//
//
// save_checkpoint: every process writes the shards it writes (those whose
// device is the first holding their box) to a file named by the save's
// generation; once all have, process 0 renames the new index into place,
// then removes the files of older saves.
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"
#include "Internal.h"

#include "runtime/comm/MpiWorld.h"
#include "runtime/exec/Safetensors.h"
#include "runtime/exec/TensorOps.h"
#include "sharding/ShardLayout.h"
#include "support/Files.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "fmt/format.h"
#include "fmt/ranges.h"

#include <chrono>
#include <random>
#include <thread>

namespace spmd {
using detail::Catalog;
using detail::ShardedStorage;
using detail::StoredShard;
using detail::StoredTensor;

/// The slowest a disk is taken to be: a process waiting for the others to
/// save or load `bytes` waits that long for them beyond the usual timeout.
static constexpr double kSlowestDiskBytesPerSecond = 20e6;

int64_t
detail::globalBytes(const std::map<std::string, ShardedTensor> &tensors) {
  int64_t bytes = 0;
  for (const auto &[name, tensor] : tensors) {
    int64_t elements = 1;
    for (int64_t d : tensor.shape())
      elements *= d;
    bytes +=
        elements * runtime::elementTypeBytes(detail::toRuntime(tensor.dtype()));
  }
  return bytes;
}

absl::Status detail::agree(absl::Status local, const std::string &what,
                           int64_t bytes) {
  runtime::MpiWorld *world = detail::mpiProcesses();
  if (!world)
    return local;
  auto patience =
      world->timeout() + std::chrono::milliseconds(int64_t(
                             1e3 * double(bytes) / kSlowestDiskBytesPerSecond));
  llvm::Expected<double> failed = world->maxOverProcesses(
      local.ok() ? 0 : double(world->rank() + 1), what, patience);
  if (!local.ok()) {
    if (!failed)
      llvm::consumeError(failed.takeError());
    return local;
  }
  if (!failed)
    return detail::toStatus(failed.takeError(), absl::StatusCode::kInternal);
  if (*failed > 0)
    return absl::AbortedError(
        fmt::format("process {} could not {} (its error says why)",
                    int64_t(*failed) - 1, what));
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// Saving
//===----------------------------------------------------------------------===//

namespace {
/// A shard this process writes: its entry in the file and in the index.
struct ShardToWrite {
  std::string tensor;
  runtime::SafetensorsTensor entry;
  StoredShard stored;
  /// The shard's data without padding.
  runtime::TensorRef data;
};
} // namespace

/// The name of a shard's entry in its file: the tensor's, with its box
/// unless it is the whole tensor.
static std::string entryName(const std::string &tensor,
                             const StoredShard &shard,
                             llvm::ArrayRef<int64_t> shape) {
  if (llvm::all_of(shard.begin, [](int64_t b) { return b == 0; }) &&
      llvm::ArrayRef<int64_t>(shard.end) == shape)
    return tensor;
  std::vector<std::string> ranges;
  for (auto [b, e] : llvm::zip(shard.begin, shard.end))
    ranges.push_back(fmt::format("{}:{}", b, e));
  return fmt::format("{}[{}]", tensor, fmt::join(ranges, ","));
}

/// Adds the shards of `tensor` this process writes to `out`.
static absl::Status collectShards(const std::string &name,
                                  const ShardedTensor &tensor,
                                  std::vector<ShardToWrite> &out) {
  std::string where = fmt::format("tensor '{}'", name);
  if (tensor.sharding().empty())
    return absl::FailedPreconditionError(
        where + ": it holds nothing (it was never placed on devices)");
  const ShardedStorage &storage = ShardedStorage::of(tensor);
  runtime::ElementType type = detail::toRuntime(storage.dtype);
  llvm::Expected<ShardLayout> layout =
      ShardLayout::get(storage.sharding, storage.mesh, storage.shape);
  if (!layout)
    return detail::toStatus(layout.takeError(), absl::StatusCode::kInternal);
  if (!layout->partialAxes().empty())
    return absl::InvalidArgumentError(
        where + ": its sharding " + storage.sharding.str() +
        " holds partial values; reduce them before saving");
  for (const runtime::ShardedBuffer::Shard &shard :
       storage.tensor.localShards()) {
    if (layout->devicesHolding(layout->shardIndex(shard.device)).front() !=
        shard.device)
      continue;
    ShardToWrite write{name, {}, {}, shard.data};
    std::vector<int64_t> valid;
    for (const DimSlice &slice : shard.slices) {
      write.stored.begin.push_back(slice.offset);
      write.stored.end.push_back(slice.offset + slice.valid);
      valid.push_back(slice.valid);
    }
    if (llvm::ArrayRef<int64_t>(valid) != shard.data->shape()) {
      write.data = std::make_shared<runtime::HostBuffer>(type, valid);
      std::vector<int64_t> zeros(valid.size(), 0);
      runtime::copyBox(*shard.data, zeros, valid, *write.data, zeros);
    }
    write.stored.bytes = write.data->sizeInBytes();
    if (write.stored.bytes == 0)
      continue;
    write.entry = {entryName(name, write.stored, storage.shape), type, valid,
                   write.data->data()};
    out.push_back(std::move(write));
  }
  return absl::OkStatus();
}

/// A number naming this save, the same on every process.
static absl::StatusOr<std::string> newGeneration() {
  std::random_device device;
  uint64_t bits =
      (uint64_t(device()) << 32 | device()) ^
      uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  // A double holds it exactly, so that processes agree through a maximum.
  double value = double(bits & ((uint64_t(1) << 52) - 1));
  if (runtime::MpiWorld *world = detail::mpiProcesses()) {
    llvm::Expected<double> agreed =
        world->maxOverProcesses(value, "naming the checkpoint");
    if (!agreed)
      return detail::toStatus(agreed.takeError(), absl::StatusCode::kInternal);
    value = *agreed;
  }
  return fmt::format("{:013x}", uint64_t(value));
}

/// Writes this process's shards to `file` in `dir`; their index entries
/// (a JSON array) in `list`.
static absl::Status writeShards(const std::string &dir, const std::string &file,
                                std::vector<ShardToWrite> &shards,
                                std::string &list) {
  std::vector<runtime::SafetensorsTensor> entries;
  for (const ShardToWrite &shard : shards)
    entries.push_back(shard.entry);
  // The sums are taken while the file is written and synced: the disk,
  // not the core, is what a save waits for.
  std::thread sums([&] {
    for (ShardToWrite &shard : shards) {
      shard.stored.checksums =
          detail::chunkChecksums(shard.entry.data, shard.stored.bytes);
      shard.stored.linearSums =
          detail::chunkLinearSums(shard.entry.data, shard.stored.bytes);
    }
  });
  llvm::Expected<std::vector<uint64_t>> offsets =
      runtime::writeSafetensors(detail::inFolder(dir, file), entries);
  sums.join();
  if (!offsets)
    return detail::toStatus(offsets.takeError(), absl::StatusCode::kInternal);
  llvm::json::Array json;
  int64_t bytes = 0;
  for (auto [shard, offset] : llvm::zip(shards, *offsets)) {
    shard.stored.file = file;
    shard.stored.offset = offset;
    json.push_back(detail::shardToJson(shard.tensor, shard.stored));
    bytes += shard.stored.bytes;
  }
  detail::addCounter("checkpoint_bytes_written", bytes);
  list = llvm::formatv("{0}", llvm::json::Value(std::move(json))).str();
  return absl::OkStatus();
}

/// The tensors of the index, without their shards.
static Catalog catalogOf(const std::map<std::string, ShardedTensor> &tensors) {
  Catalog catalog;
  for (const auto &[name, tensor] : tensors) {
    const ShardedStorage &storage = ShardedStorage::of(tensor);
    llvm::json::Object mesh{
        {"shape", llvm::json::Array(storage.mesh.shape())},
        {"axes", llvm::json::Array(storage.mesh.axisNames())},
        {"device_ids", llvm::json::Array(storage.mesh.deviceIds())}};
    catalog[name] = StoredTensor{detail::toRuntime(storage.dtype),
                                 storage.shape,
                                 {},
                                 storage.sharding.str(),
                                 std::move(mesh)};
  }
  return catalog;
}

/// Removes what older saves and unfinished ones left in `dir`; no save
/// into it is under way (process 0 holds its lock).
static void removeStaleFiles(const std::string &dir,
                             const std::string &generation) {
  std::error_code ec;
  std::string current = "shards-" + generation + "-";
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (detail::isSaveFile(name) &&
        !(name.starts_with(current) && name.ends_with(".safetensors")))
      llvm::sys::fs::remove(it->path());
  }
}

/// `dir` and the folders above it made where missing: FailedPrecondition
/// where something else (a file) is in the way, else Internal.
static absl::Status makeFolder(const std::string &dir) {
  // create_directories takes a file that is there as made.
  std::error_code ec = llvm::sys::fs::create_directories(dir);
  if (!ec && llvm::sys::fs::is_directory(dir))
    return absl::OkStatus();
  if (!ec)
    ec = std::make_error_code(std::errc::not_a_directory);
  bool inTheWay = detail::fileErrorCode(dir, /*folder=*/true) ==
                  absl::StatusCode::kFailedPrecondition;
  return absl::Status(
      inTheWay ? absl::StatusCode::kFailedPrecondition
               : absl::StatusCode::kInternal,
      fmt::format("cannot make the folder '{}': {}", dir, ec.message()));
}

/// Process 0: `dir` made and locked in `lock`, so that no other save into
/// it (whose files this one's would remove) is under way.
static absl::Status lockFolder(const std::string &dir,
                               std::optional<FolderLock> &lock) {
  if (absl::Status made = makeFolder(dir); !made.ok())
    return made;
  llvm::Expected<std::optional<FolderLock>> acquired =
      FolderLock::tryAcquire(dir);
  if (!acquired)
    return detail::toStatus(acquired.takeError(), absl::StatusCode::kInternal);
  if (!*acquired)
    return absl::FailedPreconditionError(fmt::format(
        "another save into '{}' is under way: saves into one folder must "
        "not overlap",
        dir));
  lock = std::move(*acquired);
  return absl::OkStatus();
}

/// Whether every file the shards of `catalog` lie in is in `dir` as this
/// process sees it, and long enough. Processes given folders that are not
/// one shared folder (node-local paths) write their files elsewhere: an
/// index naming them would replace a good checkpoint with a broken one.
static absl::Status checkFilesVisible(const std::string &dir,
                                      const Catalog &catalog) {
  std::map<std::string, uint64_t> needed;
  for (const auto &[name, tensor] : catalog)
    for (const StoredShard &shard : tensor.shards)
      needed[shard.file] =
          std::max(needed[shard.file], shard.offset + shard.bytes);
  for (const auto &[file, bytes] : needed) {
    uint64_t size = 0;
    std::string path = detail::inFolder(dir, file);
    if (llvm::sys::fs::file_size(path, size) || size < bytes)
      return absl::FailedPreconditionError(fmt::format(
          "'{}', written by another process, is not in the folder as "
          "process 0 sees it: every process must save into one shared "
          "folder (the checkpoint already there is kept)",
          path));
  }
  return absl::OkStatus();
}

/// Process 0: the index of every process's `lists`, renamed into place.
static absl::Status writeIndex(
    const std::string &dir, const std::map<std::string, ShardedTensor> &tensors,
    const std::vector<std::string> &lists, const std::string &generation) {
  Catalog catalog = catalogOf(tensors);
  for (const std::string &list : lists)
    if (absl::Status status = detail::addShardsFromJson(list, catalog);
        !status.ok())
      return status;
  if (absl::Status visible = checkFilesVisible(dir, catalog); !visible.ok())
    return visible;
  llvm::json::Value index = detail::indexToJson(catalog, generation);
  if (llvm::Error err = writeFileDurably(
          detail::inFolder(dir, detail::kIndexFile), "checkpoint index",
          [&](llvm::raw_ostream &os) { os << llvm::formatv("{0:1}", index); }))
    return detail::toStatus(std::move(err), absl::StatusCode::kInternal);
  removeStaleFiles(dir, generation);
  return absl::OkStatus();
}

/// This process's shards written, their lists in `lists` on process 0.
static absl::Status
writeLocal(const std::string &dir,
           const std::map<std::string, ShardedTensor> &tensors,
           const std::string &generation, std::string &list) {
  if (absl::Status made = makeFolder(dir); !made.ok())
    return made;
  std::vector<ShardToWrite> shards;
  for (const auto &[name, tensor] : tensors) {
    // Names are JSON strings, and keys of safetensors headers.
    if (name.empty() || name == "__metadata__" || !llvm::json::isUTF8(name))
      return absl::InvalidArgumentError(fmt::format(
          "'{}' cannot name a tensor of a checkpoint (names are non-empty "
          "UTF-8, other than __metadata__)",
          llvm::json::fixUTF8(name)));
    if (absl::Status status = collectShards(name, tensor, shards); !status.ok())
      return status;
  }
  // A piece of `w` is named `w[0:2]`: a tensor of that name would clash.
  llvm::StringMap<std::string> entries;
  for (const ShardToWrite &shard : shards)
    if (auto [it, added] = entries.try_emplace(shard.entry.name, shard.tensor);
        !added)
      return absl::InvalidArgumentError(fmt::format(
          "tensors '{}' and '{}' both give a file entry the name '{}': "
          "rename one",
          it->second, shard.tensor, shard.entry.name));
  std::string file = detail::saveFileName(generation, process_index());
  return writeShards(dir, file, shards, list);
}

absl::Status
save_checkpoint(const std::string &dir,
                const std::map<std::string, ShardedTensor> &tensors) {
  absl::StatusOr<std::string> generation = newGeneration();
  if (!generation.ok())
    return generation.status();
  int64_t bytes = detail::globalBytes(tensors);
  std::optional<FolderLock> lock;
  absl::Status status = detail::agree(
      process_index() == 0 ? lockFolder(dir, lock) : absl::OkStatus(),
      "lock the checkpoint's folder", 0);
  if (!status.ok())
    return status;
  std::string list;
  status = detail::agree(writeLocal(dir, tensors, *generation, list),
                         "write its shards", bytes);
  if (!status.ok())
    return status;
  std::vector<std::string> lists{list};
  if (runtime::MpiWorld *world = detail::mpiProcesses()) {
    llvm::Expected<std::vector<std::string>> gathered =
        world->gatherText(list, "listing the checkpoint's shards");
    if (!gathered)
      return detail::toStatus(gathered.takeError(),
                              absl::StatusCode::kInternal);
    lists = std::move(*gathered);
  }
  absl::Status indexed = process_index() == 0
                             ? writeIndex(dir, tensors, lists, *generation)
                             : absl::OkStatus();
  return detail::agree(indexed, "write the checkpoint's index", bytes);
}

} // namespace spmd
