//===- Checkpoint.cpp - Saving and loading sharded tensors ----------------===//
//
// save_checkpoint: every process writes the shards it writes (those whose
// device is the first holding their box) to a file named by the save's
// generation; once all have, process 0 renames the new index into place,
// then removes the files of older saves. load_checkpoint: every process
// reads, for each of its devices, the byte ranges of the stored shards its
// box meets, verifying each checksummed chunk it reads whole.
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
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include "fmt/format.h"
#include "fmt/ranges.h"

#include <chrono>
#include <cstring>
#include <random>

namespace spmd {
using detail::Catalog;
using detail::ShardedStorage;
using detail::StoredShard;
using detail::StoredTensor;

/// The slowest a disk is taken to be: a process waiting for the others to
/// save or load `bytes` waits this long for them beyond the usual timeout.
static constexpr double kSlowestDiskBytesPerSecond = 20e6;

/// The bytes of `tensors` (whole, over every process).
static int64_t
globalBytes(const std::map<std::string, ShardedTensor> &tensors) {
  int64_t bytes = 0;
  for (const auto &[name, tensor] : tensors) {
    int64_t elements = 1;
    for (int64_t d : tensor.shape())
      elements *= d;
    bytes += elements *
             runtime::elementTypeBytes(detail::toRuntime(tensor.dtype()));
  }
  return bytes;
}

/// Every process's outcome of a step on `bytes` bytes, on every process:
/// each keeps its own error; the others learn which process failed.
static absl::Status agree(absl::Status local, const std::string &what,
                          int64_t bytes) {
  runtime::MpiWorld *world = detail::mpiProcesses();
  if (!world)
    return local;
  auto patience = world->timeout() + std::chrono::milliseconds(int64_t(
                                         1e3 * double(bytes) /
                                         kSlowestDiskBytesPerSecond));
  llvm::Expected<double> failed = world->maxOverProcesses(
      local.ok() ? 0 : double(world->rank() + 1), what, patience);
  if (!local.ok())
    return local;
  if (!failed)
    return detail::toStatus(failed.takeError(), absl::StatusCode::kInternal);
  if (*failed > 0)
    return absl::AbortedError(fmt::format(
        "process {} could not {} (its error says why)", int64_t(*failed) - 1,
        what));
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
    return absl::InvalidArgumentError(
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
  uint64_t bits = (uint64_t(device()) << 32 | device()) ^
                  uint64_t(std::chrono::steady_clock::now()
                               .time_since_epoch()
                               .count());
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
  llvm::Expected<std::vector<uint64_t>> offsets =
      runtime::writeSafetensors(detail::inFolder(dir, file), entries);
  if (!offsets)
    return detail::toStatus(offsets.takeError(), absl::StatusCode::kInternal);
  llvm::json::Array json;
  int64_t bytes = 0;
  for (auto [shard, offset] : llvm::zip(shards, *offsets)) {
    shard.stored.file = file;
    shard.stored.offset = offset;
    shard.stored.checksums =
        detail::chunkChecksums(shard.entry.data, shard.stored.bytes);
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

/// Removes what older saves and unfinished ones left in `dir`.
static void removeStaleFiles(const std::string &dir,
                             const std::string &generation) {
  std::error_code ec;
  std::string current = "shards-" + generation + "-";
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if ((name.starts_with("shards-") && !name.starts_with(current)) ||
        name.ends_with(".safetensors.tmp") || name == "index.json.tmp")
      llvm::sys::fs::remove(it->path());
  }
}

/// Process 0: the index of every process's `lists`, renamed into place.
static absl::Status writeIndex(const std::string &dir,
                               const std::map<std::string, ShardedTensor> &tensors,
                               const std::vector<std::string> &lists,
                               const std::string &generation) {
  Catalog catalog = catalogOf(tensors);
  for (const std::string &list : lists)
    if (absl::Status status = detail::addShardsFromJson(list, catalog);
        !status.ok())
      return status;
  llvm::json::Value index = detail::indexToJson(catalog, generation);
  if (llvm::Error err = writeFileDurably(
          detail::inFolder(dir, detail::kIndexFile), "checkpoint index",
          [&](llvm::raw_ostream &os) { os << llvm::formatv("{0:1}", index); }))
    return detail::toStatus(std::move(err), absl::StatusCode::kInternal);
  removeStaleFiles(dir, generation);
  return absl::OkStatus();
}

/// This process's shards written, their lists in `lists` on process 0.
static absl::Status writeLocal(const std::string &dir,
                               const std::map<std::string, ShardedTensor> &tensors,
                               const std::string &generation,
                               std::string &list) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return absl::InternalError(
        fmt::format("cannot make the folder '{}': {}", dir, ec.message()));
  std::vector<ShardToWrite> shards;
  for (const auto &[name, tensor] : tensors)
    if (absl::Status status = collectShards(name, tensor, shards); !status.ok())
      return status;
  std::string file = fmt::format("shards-{}-{:05}.safetensors", generation,
                                 process_index());
  return writeShards(dir, file, shards, list);
}

absl::Status save_checkpoint(const std::string &dir,
                             const std::map<std::string, ShardedTensor> &tensors) {
  absl::StatusOr<std::string> generation = newGeneration();
  if (!generation.ok())
    return generation.status();
  int64_t bytes = globalBytes(tensors);
  std::string list;
  absl::Status status = agree(writeLocal(dir, tensors, *generation, list),
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
  return agree(indexed, "write the checkpoint's index", bytes);
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

namespace {
/// The files a load reads, each opened once, and the bytes it read.
class ShardReader {
public:
  /// Reads the box [lo, hi) (global indices) of `shard` of `tensor` into
  /// `into`, row-major.
  absl::Status readBox(const std::string &tensor, runtime::ElementType type,
                       const StoredShard &shard, llvm::ArrayRef<int64_t> lo,
                       llvm::ArrayRef<int64_t> hi, uint8_t *into);
  int64_t bytesRead() const { return bytesRead_; }

private:
  struct Span {
    uint64_t offset, bytes; // in the shard
    uint8_t *into;
  };
  absl::StatusOr<const RandomAccessFile *> open(const std::string &path);
  absl::Status readSpan(const std::string &tensor, runtime::ElementType type,
                        const StoredShard &shard, const RandomAccessFile &file,
                        const Span &span);
  absl::Status verifyChunks(const std::string &tensor, const StoredShard &shard,
                            const RandomAccessFile &file, const Span &span);

  std::map<std::string, RandomAccessFile> files;
  int64_t bytesRead_ = 0;
};
} // namespace

absl::StatusOr<const RandomAccessFile *>
ShardReader::open(const std::string &path) {
  auto it = files.find(path);
  if (it == files.end()) {
    llvm::Expected<RandomAccessFile> file =
        RandomAccessFile::open(path, "checkpoint file");
    if (!file)
      return absl::NotFoundError(fmt::format(
          "{}: {} (the checkpoint is incomplete)", path,
          llvm::toString(file.takeError())));
    it = files.emplace(path, std::move(*file)).first;
  }
  return &it->second;
}

/// The contiguous runs of the box [lo, hi) of `shard`, in file order, as
/// spans of the shard's bytes; consecutive runs merged.
static std::vector<std::pair<uint64_t, uint64_t>>
runsOf(const StoredShard &shard, uint64_t width, llvm::ArrayRef<int64_t> lo,
       llvm::ArrayRef<int64_t> hi) {
  size_t rank = lo.size();
  if (rank == 0)
    return {{0, width}};
  std::vector<int64_t> size(rank), stride(rank, 1);
  for (size_t d = 0; d < rank; ++d)
    size[d] = shard.end[d] - shard.begin[d];
  for (size_t d = rank - 1; d > 0; --d)
    stride[d - 1] = stride[d] * size[d];
  // Dimensions after k are read whole: each run spans them.
  size_t k = rank - 1;
  while (k > 0 && hi[k] - lo[k] == size[k])
    --k;
  uint64_t runBytes = uint64_t(hi[k] - lo[k]) * stride[k] * width;
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  std::vector<int64_t> at(lo.begin(), lo.begin() + k);
  while (true) {
    int64_t element = (lo[k] - shard.begin[k]) * stride[k];
    for (size_t d = 0; d < k; ++d)
      element += (at[d] - shard.begin[d]) * stride[d];
    uint64_t offset = uint64_t(element) * width;
    if (!runs.empty() && runs.back().first + runs.back().second == offset)
      runs.back().second += runBytes;
    else
      runs.emplace_back(offset, runBytes);
    size_t d = k;
    while (d > 0 && ++at[d - 1] == hi[d - 1]) {
      at[d - 1] = lo[d - 1];
      --d;
    }
    if (d == 0)
      return runs;
  }
}

absl::Status ShardReader::readBox(const std::string &tensor,
                                  runtime::ElementType type,
                                  const StoredShard &shard,
                                  llvm::ArrayRef<int64_t> lo,
                                  llvm::ArrayRef<int64_t> hi, uint8_t *into) {
  absl::StatusOr<const RandomAccessFile *> file = open(shard.file);
  if (!file.ok())
    return file.status();
  uint64_t width = runtime::elementTypeBytes(type);
  for (auto [offset, bytes] : runsOf(shard, width, lo, hi)) {
    Span span{offset, bytes, into};
    if (absl::Status status = readSpan(tensor, type, shard, **file, span);
        !status.ok())
      return status;
    into += bytes;
  }
  return absl::OkStatus();
}

absl::Status ShardReader::readSpan(const std::string &tensor,
                                   runtime::ElementType type,
                                   const StoredShard &shard,
                                   const RandomAccessFile &file,
                                   const Span &span) {
  if (llvm::Error err =
          file.readAt(shard.offset + span.offset, span.bytes, span.into))
    return absl::DataLossError(fmt::format(
        "tensor '{}': {} (the checkpoint is truncated)", tensor,
        llvm::toString(std::move(err))));
  bytesRead_ += span.bytes;
  if (llvm::Error err = runtime::checkSafetensorsValues(
          type, span.into, span.bytes, file.path(), tensor))
    return detail::toStatus(std::move(err));
  return verifyChunks(tensor, shard, file, span);
}

absl::Status ShardReader::verifyChunks(const std::string &tensor,
                                       const StoredShard &shard,
                                       const RandomAccessFile &file,
                                       const Span &span) {
  constexpr uint64_t chunk = detail::kChecksumChunkBytes;
  uint64_t first = span.offset / chunk,
           last = (span.offset + span.bytes - 1) / chunk;
  std::vector<uint8_t> whole;
  for (uint64_t c = first; c <= last && c < shard.checksums.size(); ++c) {
    uint64_t begin = c * chunk, end = std::min(begin + chunk, shard.bytes);
    uint64_t head = span.offset > begin ? span.offset - begin : 0;
    uint64_t tail = end > span.offset + span.bytes
                        ? end - (span.offset + span.bytes)
                        : 0;
    const uint8_t *bytes = span.into + (begin + head - span.offset);
    if (head || tail) {
      // A chunk read in part is completed when that costs at most a tenth
      // of the span; else it stays unverified.
      if ((head + tail) * 10 > span.bytes)
        continue;
      whole.resize(end - begin);
      if (llvm::Error err = file.readAt(shard.offset + begin, head,
                                        whole.data()))
        return detail::toStatus(std::move(err), absl::StatusCode::kDataLoss);
      std::memcpy(whole.data() + head, bytes, end - begin - head - tail);
      if (llvm::Error err =
              file.readAt(shard.offset + end - tail, tail,
                          whole.data() + (end - begin - tail)))
        return detail::toStatus(std::move(err), absl::StatusCode::kDataLoss);
      bytesRead_ += head + tail;
      bytes = whole.data();
    }
    if (llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(bytes, end - begin)) !=
        shard.checksums[c])
      return absl::DataLossError(fmt::format(
          "{}: tensor '{}': bytes [{}, {}) of a shard do not match their "
          "checksum in the index (the file is corrupted)",
          file.path(), tensor, shard.offset + begin, shard.offset + end));
  }
  return absl::OkStatus();
}

/// A device's buffer of `localShape` for the box `slices` of `tensor`,
/// read from the stored shards the box meets, or copied from a device
/// holding the same box (in `loaded`); its padding poisoned.
static absl::StatusOr<runtime::TensorRef>
loadBox(const std::string &name, const StoredTensor &tensor,
        llvm::ArrayRef<DimSlice> slices, llvm::ArrayRef<int64_t> localShape,
        std::map<std::vector<int64_t>, runtime::TensorRef> &loaded,
        ShardReader &reader) {
  std::vector<int64_t> lo, hi;
  for (const DimSlice &slice : slices) {
    lo.push_back(slice.offset);
    hi.push_back(slice.offset + slice.valid);
  }
  std::vector<int64_t> key = lo;
  key.insert(key.end(), hi.begin(), hi.end());
  if (auto it = loaded.find(key); it != loaded.end())
    return std::make_shared<runtime::HostBuffer>(*it->second);
  auto local = std::make_shared<runtime::HostBuffer>(
      tensor.type, std::vector<int64_t>(localShape.begin(), localShape.end()),
      runtime::Init::None);
  bool padded = llvm::any_of(
      slices, [](const DimSlice &slice) { return slice.valid < slice.size; });
  if (padded)
    runtime::poison(*local);
  size_t rank = lo.size();
  for (const StoredShard &shard : tensor.shards) {
    std::vector<int64_t> from(rank), to(rank), sizes(rank), at(rank);
    bool meets = true;
    for (size_t d = 0; d < rank; ++d) {
      from[d] = std::max(lo[d], shard.begin[d]);
      to[d] = std::min(hi[d], shard.end[d]);
      sizes[d] = to[d] - from[d];
      at[d] = from[d] - lo[d];
      meets &= sizes[d] > 0;
    }
    if (!meets)
      continue;
    // The whole box from one shard lands in place; pieces go through a
    // buffer of their own.
    if (!padded && from == lo && to == hi) {
      if (absl::Status status = reader.readBox(name, tensor.type, shard, from,
                                               to, local->data());
          !status.ok())
        return status;
      continue;
    }
    runtime::HostBuffer piece(tensor.type, sizes, runtime::Init::None);
    if (absl::Status status =
            reader.readBox(name, tensor.type, shard, from, to, piece.data());
        !status.ok())
      return status;
    runtime::copyBox(piece, std::vector<int64_t>(rank, 0), sizes, *local, at);
  }
  loaded[key] = local;
  return local;
}

/// `tensor` placed on the devices as `target` says, read by `reader`.
static absl::StatusOr<ShardedTensor>
loadTensor(const std::string &name, const StoredTensor &tensor,
           const std::pair<Mesh, PartitionSpec> &target, ShardReader &reader) {
  auto named = [&](absl::Status status) {
    return absl::Status(status.code(), fmt::format("tensor '{}': {}", name,
                                                   std::string(status.message())));
  };
  absl::StatusOr<detail::Placement> placed =
      detail::placement(target.first, target.second, tensor.shape);
  if (!placed.ok())
    return named(placed.status());
  std::vector<runtime::TensorRef> locals;
  // Devices holding the same box (replicas) copy it from the first.
  std::map<std::vector<int64_t>, runtime::TensorRef> loaded;
  for (int64_t device = placed->firstDevice;
       device < placed->firstDevice + placed->numDevices; ++device) {
    absl::StatusOr<runtime::TensorRef> local =
        loadBox(name, tensor, placed->layout.sliceOf(device),
                placed->layout.localShape(), loaded, reader);
    if (!local.ok())
      return local.status();
    locals.push_back(std::move(*local));
  }
  return placed->wrap(std::move(locals), tensor.type);
}

absl::StatusOr<std::map<std::string, ShardedTensor>>
detail::loadOnThisProcess(const std::string &path, const LoadTargets &targets) {
  absl::StatusOr<Catalog> catalog = detail::readCatalog(path);
  if (!catalog.ok())
    return catalog.status();
  ShardReader reader;
  std::map<std::string, ShardedTensor> tensors;
  for (const auto &[name, target] : targets) {
    auto stored = catalog->find(name);
    if (stored == catalog->end())
      return absl::NotFoundError(fmt::format(
          "tensor '{}' is not in the checkpoint '{}'", name, path));
    absl::StatusOr<ShardedTensor> tensor =
        loadTensor(name, stored->second, target, reader);
    if (!tensor.ok())
      return tensor.status();
    tensors.emplace(name, std::move(*tensor));
  }
  detail::addCounter("checkpoint_bytes_read", reader.bytesRead());
  return tensors;
}

absl::StatusOr<std::map<std::string, ShardedTensor>>
load_checkpoint(const std::string &dir, const detail::LoadTargets &targets) {
  absl::StatusOr<std::map<std::string, ShardedTensor>> loaded =
      detail::loadOnThisProcess(dir, targets);
  absl::Status agreed = agree(loaded.status(), "load the checkpoint",
                              loaded.ok() ? globalBytes(*loaded) : 0);
  if (!agreed.ok())
    return agreed;
  return loaded;
}

} // namespace spmd
