//===- CheckpointLoad.cpp - Loading sharded tensors -----------------------===//
//
// load_checkpoint: for each tensor, every device of this process asks for
// the part of each stored shard its box meets (devices holding the same
// box share one read); then each shard's pieces are read, each byte once,
// and the shard's checksummed chunks verified: those the pieces cover
// whole, and those covered in part once the missing bytes are read, the
// cheapest first, while the bytes added stay within a tenth of those asked
// for. Finally the pieces land in the devices' buffers.
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"
#include "Internal.h"

#include "runtime/comm/MpiWorld.h"
#include "runtime/devices/Devices.h"
#include "runtime/exec/Safetensors.h"
#include "runtime/exec/TensorOps.h"
#include "support/Files.h"

#include "llvm/Support/xxhash.h"

#include "fmt/format.h"

#include <cstring>
#include <list>

namespace spmd {
using detail::Catalog;
using detail::StoredShard;
using detail::StoredTensor;

namespace {
/// Bytes [offset, offset + bytes) of a shard, to be read into `into`.
struct Piece {
  uint64_t offset, bytes;
  uint8_t *into;
  /// Whether this process is the first holding its box: the one that
  /// counts it when processes verify a chunk together.
  bool owned;
};

/// The files a load reads (a bounded number open at once) and the bytes
/// it read.
class FileSet {
public:
  absl::StatusOr<const RandomAccessFile *> open(const std::string &path);
  int64_t bytesRead = 0;

private:
  static constexpr size_t kMaxOpen = 64;
  std::list<RandomAccessFile> files;
};

/// The reads of one tensor: pieces of its shards, planned first, then read
/// and verified shard by shard.
class TensorRead {
public:
  TensorRead(const std::string &name, const StoredTensor &tensor,
             std::vector<detail::UnverifiedRun> *unverified)
      : name(name), tensor(tensor), unverified(unverified) {}
  /// Asks for the box [lo, hi) (global) of `shard`, row-major into `into`;
  /// `owned` if this process is the first holding the box.
  void request(const StoredShard &shard, llvm::ArrayRef<int64_t> lo,
               llvm::ArrayRef<int64_t> hi, uint8_t *into, bool owned);
  absl::Status readAll(FileSet &files);

private:
  struct ShardPieces {
    const StoredShard *shard;
    std::vector<Piece> pieces;
  };
  absl::Status readShard(ShardPieces &wanted, const RandomAccessFile &file,
                         FileSet &files, uint64_t &budget);
  /// Verifies the checksums of the chunks `wanted` meets, those it meets in
  /// part while `budget` lasts.
  absl::Status checkChunks(ShardPieces &wanted, const RandomAccessFile &file,
                           FileSet &files, uint64_t &budget);
  /// The chunks `chunks` (ascending) of the shard, left for the processes
  /// to verify together: the bytes and linear sum of the pieces this
  /// process owns in each.
  void leaveUnverified(const ShardPieces &wanted,
                       llvm::ArrayRef<uint64_t> chunks);
  /// A bool tensor's pieces hold 0s and 1s only; errors name the element.
  absl::Status checkBools(const ShardPieces &wanted,
                          const std::string &path) const;
  absl::Status checkChunk(const ShardPieces &wanted, uint64_t chunk,
                          const RandomAccessFile &file, FileSet &files);

  const std::string &name;
  const StoredTensor &tensor;
  std::vector<detail::UnverifiedRun> *unverified;
  std::vector<ShardPieces> shards;
  uint64_t requested = 0;
};
} // namespace

absl::StatusOr<const RandomAccessFile *>
FileSet::open(const std::string &path) {
  for (auto it = files.begin(); it != files.end(); ++it)
    if (it->path() == path) {
      files.splice(files.begin(), files, it);
      return &files.front();
    }
  llvm::Expected<RandomAccessFile> file =
      RandomAccessFile::open(path, "checkpoint file");
  if (!file)
    return absl::Status(
        detail::cannotOpen(path),
        fmt::format("{}: {} (the checkpoint is incomplete, or a save "
                    "replaced it while it was loaded)",
                    path, llvm::toString(file.takeError())));
  if (files.size() == kMaxOpen)
    files.pop_back();
  files.push_front(std::move(*file));
  return &files.front();
}

/// The contiguous runs of the box [lo, hi) of `shard` (row-major bytes of
/// `width`), in file order, consecutive runs merged: offsets in the shard.
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

void TensorRead::request(const StoredShard &shard, llvm::ArrayRef<int64_t> lo,
                         llvm::ArrayRef<int64_t> hi, uint8_t *into,
                         bool owned) {
  auto it = llvm::find_if(
      shards, [&](const ShardPieces &s) { return s.shard == &shard; });
  if (it == shards.end())
    it = shards.insert(shards.end(), {&shard, {}});
  for (auto [offset, bytes] :
       runsOf(shard, runtime::elementTypeBytes(tensor.type), lo, hi)) {
    it->pieces.push_back({offset, bytes, into, owned});
    into += bytes;
    requested += bytes;
  }
}

absl::Status TensorRead::readAll(FileSet &files) {
  uint64_t budget = requested / 10;
  for (ShardPieces &wanted : shards) {
    absl::StatusOr<const RandomAccessFile *> file =
        files.open(wanted.shard->file);
    if (!file.ok())
      return file.status();
    if (absl::Status status = readShard(wanted, **file, files, budget);
        !status.ok())
      return status;
  }
  return absl::OkStatus();
}

absl::Status TensorRead::readShard(ShardPieces &wanted,
                                   const RandomAccessFile &file, FileSet &files,
                                   uint64_t &budget) {
  const StoredShard &shard = *wanted.shard;
  llvm::sort(wanted.pieces, [](const Piece &a, const Piece &b) {
    return a.offset < b.offset;
  });
  for (const Piece &piece : wanted.pieces) {
    if (llvm::Error err =
            file.readAt(shard.offset + piece.offset, piece.bytes, piece.into))
      return absl::DataLossError(
          fmt::format("tensor '{}': {}", name, llvm::toString(std::move(err))));
    files.bytesRead += piece.bytes;
  }
  // Damage reads as damage: bools are checked once the checksums are.
  if (absl::Status status = checkChunks(wanted, file, files, budget);
      !status.ok())
    return status;
  return checkBools(wanted, file.path());
}

absl::Status TensorRead::checkBools(const ShardPieces &wanted,
                                    const std::string &path) const {
  if (tensor.type != runtime::ElementType::I1)
    return absl::OkStatus();
  const StoredShard &shard = *wanted.shard;
  for (const Piece &piece : wanted.pieces) {
    std::optional<uint64_t> bad =
        runtime::firstNonBool(piece.into, piece.bytes);
    if (!bad)
      continue;
    // Its position in the tensor, from its position in the shard.
    uint64_t inShard = piece.offset + *bad, element = 0;
    for (size_t d = shard.begin.size(); d-- > 0;) {
      uint64_t size = shard.end[d] - shard.begin[d];
      uint64_t index = shard.begin[d] + inShard % size;
      inShard /= size;
      uint64_t stride = 1;
      for (size_t e = d + 1; e < tensor.shape.size(); ++e)
        stride *= tensor.shape[e];
      element += index * stride;
    }
    return absl::InvalidArgumentError(
        fmt::format("{}: tensor '{}': {}", path, name,
                    runtime::notABool(element, piece.into[*bad])));
  }
  return absl::OkStatus();
}

absl::Status TensorRead::checkChunks(ShardPieces &wanted,
                                     const RandomAccessFile &file,
                                     FileSet &files, uint64_t &budget) {
  const StoredShard &shard = *wanted.shard;
  if (shard.checksums.empty())
    return absl::OkStatus();
  // Each chunk the pieces meet: verified if they cover it; else completed
  // (the cheapest first) while the budget lasts.
  constexpr uint64_t kChunk = detail::kChecksumChunkBytes;
  std::map<uint64_t, uint64_t> covered; // chunk -> bytes the pieces hold
  for (const Piece &piece : wanted.pieces)
    for (uint64_t at = piece.offset; at < piece.offset + piece.bytes;) {
      uint64_t chunk = at / kChunk;
      uint64_t end = std::min((chunk + 1) * kChunk, piece.offset + piece.bytes);
      covered[chunk] += end - at;
      at = end;
    }
  std::vector<std::pair<uint64_t, uint64_t>> partial; // (missing, chunk)
  for (auto [chunk, bytes] : covered) {
    uint64_t size = std::min(kChunk, shard.bytes - chunk * kChunk);
    if (bytes == size) {
      if (absl::Status status = checkChunk(wanted, chunk, file, files);
          !status.ok())
        return status;
    } else {
      partial.emplace_back(size - bytes, chunk);
    }
  }
  llvm::sort(partial);
  std::vector<uint64_t> left;
  for (auto [missing, chunk] : partial) {
    if (missing > budget) {
      left.push_back(chunk);
      continue;
    }
    budget -= missing;
    if (absl::Status status = checkChunk(wanted, chunk, file, files);
        !status.ok())
      return status;
  }
  llvm::sort(left);
  leaveUnverified(wanted, left);
  return absl::OkStatus();
}

void TensorRead::leaveUnverified(const ShardPieces &wanted,
                                 llvm::ArrayRef<uint64_t> chunks) {
  const StoredShard &shard = *wanted.shard;
  if (!unverified || shard.linearSums.empty() || chunks.empty())
    return;
  constexpr uint64_t kChunk = detail::kChecksumChunkBytes;
  // (bytes, sum) per chunk left, from one pass over the pieces (in order).
  std::vector<std::pair<uint64_t, uint64_t>> parts(chunks.size());
  for (const Piece &piece : wanted.pieces) {
    if (!piece.owned)
      continue;
    uint64_t end = piece.offset + piece.bytes;
    for (auto c = llvm::lower_bound(chunks, piece.offset / kChunk);
         c != chunks.end() && *c * kChunk < end; ++c) {
      uint64_t from = std::max(*c * kChunk, piece.offset);
      uint64_t to = std::min((*c + 1) * kChunk, end);
      auto &[bytes, sum] = parts[c - chunks.begin()];
      bytes += to - from;
      sum = detail::addLinearSums(
          sum, detail::linearSum(piece.into + (from - piece.offset), to - from,
                                 from - *c * kChunk));
    }
  }
  for (auto [chunk, part] : llvm::zip(chunks, parts))
    unverified->push_back({name, shard.file,
                           uint64_t(wanted.shard - tensor.shards.data()), chunk,
                           part.first, part.second,
                           std::min(kChunk, shard.bytes - chunk * kChunk),
                           shard.linearSums[chunk], shard.offset});
}

/// Verifies chunk `chunk` of the shard: bytes the pieces hold are taken from
/// them, the others read.
absl::Status TensorRead::checkChunk(const ShardPieces &wanted, uint64_t chunk,
                                    const RandomAccessFile &file,
                                    FileSet &files) {
  const StoredShard &shard = *wanted.shard;
  constexpr uint64_t kChunk = detail::kChecksumChunkBytes;
  uint64_t begin = chunk * kChunk, end = std::min(begin + kChunk, shard.bytes);
  // The first piece ending after `begin`.
  auto piece = llvm::partition_point(wanted.pieces, [&](const Piece &p) {
    return p.offset + p.bytes <= begin;
  });
  llvm::ArrayRef<uint8_t> bytes;
  std::vector<uint8_t> assembled;
  if (piece != wanted.pieces.end() && piece->offset <= begin &&
      piece->offset + piece->bytes >= end) {
    bytes = llvm::ArrayRef<uint8_t>(piece->into + (begin - piece->offset),
                                    end - begin);
  } else {
    assembled.resize(end - begin);
    for (uint64_t at = begin; at < end;) {
      if (piece != wanted.pieces.end() && piece->offset <= at) {
        uint64_t until = std::min(end, piece->offset + piece->bytes);
        std::memcpy(assembled.data() + (at - begin),
                    piece->into + (at - piece->offset), until - at);
        at = until;
        ++piece;
        continue;
      }
      uint64_t until =
          piece != wanted.pieces.end() ? std::min(end, piece->offset) : end;
      if (llvm::Error err = file.readAt(shard.offset + at, until - at,
                                        assembled.data() + (at - begin)))
        return absl::DataLossError(fmt::format("tensor '{}': {}", name,
                                               llvm::toString(std::move(err))));
      files.bytesRead += until - at;
      at = until;
    }
    bytes = assembled;
  }
  if (llvm::xxh3_64bits(bytes) != shard.checksums[chunk])
    return absl::DataLossError(fmt::format(
        "{}: tensor '{}': bytes [{}, {}) of a shard do not match their "
        "checksum in the index (the file is corrupted)",
        file.path(), name, shard.offset + begin, shard.offset + end));
  return absl::OkStatus();
}

namespace {
/// What a device's buffer gets once the reads are done: a piece read
/// apart copied into its box, or a replica's buffer copied whole.
struct Landing {
  std::shared_ptr<runtime::HostBuffer> piece;
  std::vector<int64_t> at;
  runtime::TensorRef from;
  runtime::TensorRef to;
};
} // namespace

/// The box `slices` hold (the elements, not the padding): its begins,
/// then its ends.
static std::vector<int64_t> boxKey(llvm::ArrayRef<DimSlice> slices) {
  std::vector<int64_t> key;
  for (const DimSlice &slice : slices)
    key.push_back(slice.offset);
  for (const DimSlice &slice : slices)
    key.push_back(slice.offset + slice.valid);
  return key;
}

/// A device's buffer of `localShape` for the box `slices` of `tensor`,
/// its padding poisoned: its reads asked of `reads`, what lands after them
/// added to `landings`. A device holding the box a device before it holds
/// (`planned`) copies that device's buffer.
static runtime::TensorRef
planBox(const StoredTensor &tensor, llvm::ArrayRef<DimSlice> slices,
        llvm::ArrayRef<int64_t> localShape,
        std::map<std::vector<int64_t>, runtime::TensorRef> &planned,
        const std::map<std::vector<int64_t>, int64_t> &firstHolders,
        int64_t process, int64_t perProcess, TensorRead &reads,
        std::vector<Landing> &landings) {
  std::vector<int64_t> key = boxKey(slices);
  llvm::ArrayRef<int64_t> lo = llvm::ArrayRef(key).take_front(slices.size());
  llvm::ArrayRef<int64_t> hi = llvm::ArrayRef(key).take_back(slices.size());
  auto local = std::make_shared<runtime::HostBuffer>(
      tensor.type, std::vector<int64_t>(localShape.begin(), localShape.end()),
      runtime::Init::None);
  if (auto it = planned.find(key); it != planned.end()) {
    landings.push_back({nullptr, {}, it->second, local});
    return local;
  }
  planned[key] = local;
  bool owned = firstHolders.at(key) / perProcess == process;
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
    // The whole box from one shard lands in place; a piece is read into a
    // buffer of its own and copied into its box.
    if (!padded && llvm::ArrayRef(from) == lo && llvm::ArrayRef(to) == hi) {
      reads.request(shard, from, to, local->data(), owned);
      continue;
    }
    auto piece = std::make_shared<runtime::HostBuffer>(tensor.type, sizes,
                                                       runtime::Init::None);
    reads.request(shard, from, to, piece->data(), owned);
    landings.push_back({piece, at, nullptr, local});
  }
  return local;
}

/// `tensor` placed on the devices as `target` says, read through `files`.
static absl::StatusOr<ShardedTensor>
loadTensor(const std::string &name, const StoredTensor &tensor,
           const std::pair<Mesh, PartitionSpec> &target, FileSet &files,
           std::vector<detail::UnverifiedRun> *unverified) {
  absl::StatusOr<detail::Placement> placed =
      detail::placement(target.first, target.second, tensor.shape);
  if (!placed.ok())
    return absl::Status(placed.status().code(),
                        fmt::format("tensor '{}': {}", name,
                                    std::string(placed.status().message())));
  TensorRead reads(name, tensor, unverified);
  std::vector<Landing> landings;
  std::map<std::vector<int64_t>, runtime::TensorRef> planned;
  std::vector<runtime::TensorRef> locals;
  // The first device holding each box, of any process: that process
  // counts the box when processes verify chunks together.
  std::map<std::vector<int64_t>, int64_t> firstHolders;
  for (int64_t device = 0; device < placed->mesh.numDevices(); ++device)
    firstHolders.try_emplace(boxKey(placed->layout.sliceOf(device)), device);
  for (int64_t device = placed->firstDevice;
       device < placed->firstDevice + placed->numDevices; ++device) {
    runtime::CountedFor counted(device - placed->firstDevice);
    locals.push_back(planBox(tensor, placed->layout.sliceOf(device),
                             placed->layout.localShape(), planned, firstHolders,
                             placed->firstDevice / placed->numDevices,
                             placed->numDevices, reads, landings));
  }
  if (absl::Status status = reads.readAll(files); !status.ok())
    return status;
  // Pieces first: replicas copy buffers they complete.
  for (const Landing &landing : landings)
    if (landing.piece)
      runtime::copyBox(*landing.piece,
                       std::vector<int64_t>(landing.at.size(), 0),
                       landing.piece->shape(), *landing.to, landing.at);
  // In place: the buffer keeps counting for its device.
  for (const Landing &landing : landings)
    if (landing.from)
      std::memcpy(landing.to->data(), landing.from->data(),
                  landing.from->sizeInBytes());
  return placed->wrap(std::move(locals), tensor.type);
}

/// The tensors `targets` places.
static detail::TensorNames namesOf(const detail::LoadTargets &targets) {
  detail::TensorNames names;
  for (const auto &[name, target] : targets)
    names.insert(name);
  return names;
}

absl::StatusOr<std::map<std::string, ShardedTensor>>
detail::loadOnThisProcess(const std::string &path, const LoadTargets &targets,
                          std::string *generation,
                          std::vector<UnverifiedRun> *unverified) {
  absl::StatusOr<Catalog> catalog =
      detail::readCatalog(path, namesOf(targets), generation);
  if (!catalog.ok())
    return catalog.status();
  FileSet files;
  std::map<std::string, ShardedTensor> tensors;
  absl::Status status;
  for (const auto &[name, target] : targets) {
    auto stored = catalog->find(name);
    if (stored == catalog->end()) {
      status = absl::NotFoundError(
          fmt::format("tensor '{}' is not in the checkpoint '{}'", name, path));
      break;
    }
    absl::StatusOr<ShardedTensor> tensor =
        loadTensor(name, stored->second, target, files, unverified);
    if (!tensor.ok()) {
      status = tensor.status();
      break;
    }
    tensors.emplace(name, std::move(*tensor));
  }
  detail::addCounter("checkpoint_bytes_read", files.bytesRead);
  if (!status.ok())
    return status;
  return tensors;
}

/// The checkpoint's size for `targets`, as its index says (0 if it cannot
/// be read): how long processes wait for each other to load it.
static int64_t bytesToLoad(const std::string &path,
                           const detail::LoadTargets &targets) {
  absl::StatusOr<Catalog> catalog = detail::readCatalog(path, namesOf(targets));
  int64_t bytes = 0;
  if (catalog.ok())
    for (const auto &[name, target] : targets)
      if (auto it = catalog->find(name); it != catalog->end())
        for (const StoredShard &shard : it->second.shards)
          bytes += shard.bytes;
  return bytes;
}

/// `runs` as JSON text, to gather.
static std::string runsToJson(const std::vector<detail::UnverifiedRun> &runs) {
  llvm::json::Array array;
  auto hex = [](uint64_t v) { return fmt::format("{:016x}", v); };
  for (const detail::UnverifiedRun &r : runs)
    array.push_back(llvm::json::Array{
        r.tensor, r.file, hex(r.shard), hex(r.chunk), hex(r.bytes), hex(r.sum),
        hex(r.chunkBytes), hex(r.expected), hex(r.shardOffset)});
  return llvm::formatv("{0}", llvm::json::Value(std::move(array))).str();
}

/// Adds the runs of a process's runsToJson text to `runs`.
static void runsFromJson(llvm::StringRef text,
                         std::vector<detail::UnverifiedRun> &runs) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json) {
    llvm::consumeError(json.takeError());
    return;
  }
  const llvm::json::Array *array = json->getAsArray();
  for (const llvm::json::Value &v : array ? *array : llvm::json::Array()) {
    const llvm::json::Array *f = v.getAsArray();
    if (!f || f->size() != 9)
      continue;
    uint64_t n[7] = {};
    for (int i = 0; i < 7; ++i)
      (void)(*f)[2 + i].getAsString().value_or("").getAsInteger(16, n[i]);
    runs.push_back({(*f)[0].getAsString().value_or("").str(),
                    (*f)[1].getAsString().value_or("").str(), n[0], n[1], n[2],
                    n[3], n[4], n[5], n[6]});
  }
}

/// Rank 0: each chunk that processes read in parts, verified from their
/// parts together: when the parts (each box counted by the first process
/// holding it) cover the chunk, their linear sums add up to the index's.
static absl::Status verifyParts(std::vector<detail::UnverifiedRun> runs) {
  llvm::sort(
      runs, [](const detail::UnverifiedRun &a, const detail::UnverifiedRun &b) {
        return std::tie(a.tensor, a.shard, a.chunk) <
               std::tie(b.tensor, b.shard, b.chunk);
      });
  for (size_t i = 0; i < runs.size();) {
    const detail::UnverifiedRun &first = runs[i];
    uint64_t bytes = 0, sum = 0;
    size_t j = i;
    for (; j < runs.size() && runs[j].tensor == first.tensor &&
           runs[j].shard == first.shard && runs[j].chunk == first.chunk;
         ++j) {
      bytes += runs[j].bytes;
      sum = detail::addLinearSums(sum, runs[j].sum);
    }
    // Fewer bytes: a process verified the chunk whole by itself.
    if (bytes == first.chunkBytes && sum != first.expected) {
      uint64_t begin =
          first.shardOffset + first.chunk * detail::kChecksumChunkBytes;
      return absl::DataLossError(fmt::format(
          "{}: tensor '{}': bytes [{}, {}) of a shard do not match their "
          "checksum in the index (the file is corrupted)",
          first.file, first.tensor, begin, begin + first.chunkBytes));
    }
    i = j;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::map<std::string, ShardedTensor>>
load_checkpoint(const std::string &dir, const detail::LoadTargets &targets) {
  std::string generation;
  std::vector<detail::UnverifiedRun> unverified;
  absl::StatusOr<std::map<std::string, ShardedTensor>> loaded =
      detail::loadOnThisProcess(dir, targets, &generation, &unverified);
  runtime::MpiWorld *world = detail::mpiProcesses();
  int64_t bytes = world ? bytesToLoad(dir, targets) : 0;
  absl::Status agreed =
      detail::agree(loaded.status(), "load the checkpoint", bytes);
  if (!agreed.ok())
    return agreed;
  // Every process must have read the same save (one may have seen the
  // index of a save that finished meanwhile).
  absl::StatusOr<bool> same = detail::sameOnEveryProcess(
      llvm::xxh3_64bits(generation), "comparing checkpoints");
  if (!same.ok())
    return same.status();
  if (!*same)
    return absl::AbortedError(fmt::format(
        "the processes loaded different saves of '{}' (a save replaced it "
        "while it was loaded)",
        dir));
  // Chunks each process read only a part of: verified from all parts.
  if (world) {
    llvm::Expected<std::vector<std::string>> all =
        world->gatherText(runsToJson(unverified), "verifying the checkpoint");
    if (!all)
      return detail::toStatus(all.takeError(), absl::StatusCode::kInternal);
    std::vector<detail::UnverifiedRun> runs;
    for (const std::string &text : *all)
      runsFromJson(text, runs);
    absl::Status verified = detail::agree(
        verifyParts(std::move(runs)), "verify the chunks read in parts", bytes);
    if (!verified.ok())
      return verified;
  }
  return loaded;
}

} // namespace spmd
