//===- CheckpointCatalog.cpp - What a checkpoint holds --------------------===//
//
// Reads a checkpoint's index, a safetensors file's header or a hub index
// into a catalog, and writes the index: the one place that knows the
// index's keys.
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"
#include "Internal.h"

#include "runtime/exec/LoadedProgram.h"
#include "runtime/exec/Safetensors.h"
#include "support/Files.h"
#include "support/Json.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include "fmt/format.h"
#include "fmt/ranges.h"

#include <cstring>
#include <limits>
#include <set>

namespace spmd::detail {

/// The largest index read (one of a million shards is about 200 MB).
static constexpr uint64_t kMaxIndexBytes = uint64_t(1) << 30;

std::string inFolder(const std::string &dir, llvm::StringRef file) {
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, file);
  return path.str().str();
}

std::string saveFileName(llvm::StringRef generation, int process) {
  return fmt::format("shards-{}-{:05}.safetensors", generation.str(), process);
}

absl::StatusCode cannotOpen(const std::string &path) {
  return llvm::sys::fs::exists(path) ? absl::StatusCode::kFailedPrecondition
                                     : absl::StatusCode::kNotFound;
}

bool isSaveFile(llvm::StringRef name) {
  if (name == "index.json.tmp")
    return true;
  name.consume_back(".tmp");
  if (!name.consume_front("shards-") || !name.consume_back(".safetensors"))
    return false;
  auto [generation, process] = name.split('-');
  return generation.size() == 13 &&
         llvm::all_of(generation, llvm::isHexDigit) && process.size() >= 5 &&
         llvm::all_of(process, llvm::isDigit);
}

std::vector<uint64_t> chunkChecksums(const uint8_t *data, uint64_t bytes) {
  std::vector<uint64_t> sums;
  for (uint64_t at = 0; at < bytes; at += kChecksumChunkBytes)
    sums.push_back(llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>(
        data + at, std::min(kChecksumChunkBytes, bytes - at))));
  return sums;
}

/// The weights of a chunk's words in its linearSum: nonzero residues
/// modulo kLinearSumPrime, drawn once from a fixed seed (splitmix64), the
/// same for every writer and reader.
static const std::vector<uint64_t> &wordWeights() {
  static const std::vector<uint64_t> weights = [] {
    std::vector<uint64_t> w(kChecksumChunkBytes / 4);
    uint64_t state = 0x5350'4d44'4c53'554dull;
    for (uint64_t &weight : w) {
      uint64_t z = (state += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      weight = (z ^ (z >> 31)) % (kLinearSumPrime - 1) + 1;
    }
    return w;
  }();
  return weights;
}

/// `value` modulo kLinearSumPrime (2^61 - 1: a fold of the high bits).
static uint64_t reduced(unsigned __int128 value) {
  uint64_t folded = uint64_t(value & kLinearSumPrime) +
                    uint64_t((value >> 61) & kLinearSumPrime) +
                    uint64_t(value >> 122);
  while (folded >= kLinearSumPrime)
    folded -= kLinearSumPrime;
  return folded;
}

uint64_t addLinearSums(uint64_t a, uint64_t b) {
  uint64_t sum = a + b; // both below 2^61: no overflow
  return sum >= kLinearSumPrime ? sum - kLinearSumPrime : sum;
}

uint64_t linearSum(const uint8_t *data, uint64_t bytes, uint64_t at) {
  assert(at + bytes <= kChecksumChunkBytes && "a part of one chunk");
  const uint64_t *weights = wordWeights().data();
  // Each product is below 2^93, so 2^16 words' sum fits 128 bits.
  unsigned __int128 sum = 0;
  // A byte of a word the part holds in part: its share of the word.
  auto byteTerm = [&](uint64_t position, uint8_t byte) {
    return (unsigned __int128)(uint64_t(byte) << (8 * (position % 4))) *
           weights[position / 4];
  };
  uint64_t i = 0;
  for (; i < bytes && (at + i) % 4; ++i)
    sum += byteTerm(at + i, data[i]);
  const uint64_t *w = weights + (at + i) / 4;
  uint64_t words = (bytes - i) / 4;
  for (uint64_t j = 0; j < words; ++j) {
    uint32_t word;
    std::memcpy(&word, data + i + 4 * j, 4);
    sum += (unsigned __int128)word * w[j];
  }
  for (i += 4 * words; i < bytes; ++i)
    sum += byteTerm(at + i, data[i]);
  return reduced(sum);
}

std::vector<uint64_t> chunkLinearSums(const uint8_t *data, uint64_t bytes) {
  std::vector<uint64_t> sums;
  for (uint64_t at = 0; at < bytes; at += kChecksumChunkBytes)
    sums.push_back(
        linearSum(data + at, std::min(kChecksumChunkBytes, bytes - at), 0));
  return sums;
}

//===----------------------------------------------------------------------===//
// The index
//===----------------------------------------------------------------------===//

static llvm::json::Array toJsonArray(const std::vector<int64_t> &values) {
  return llvm::json::Array(values);
}

llvm::json::Value shardToJson(const std::string &tensor,
                              const StoredShard &shard) {
  auto hex = [](const std::vector<uint64_t> &sums) {
    llvm::json::Array texts;
    for (uint64_t sum : sums)
      texts.push_back(fmt::format("{:016x}", sum));
    return texts;
  };
  return llvm::json::Object{
      {"tensor", tensor},
      {"file", shard.file},
      {"byte_range", llvm::json::Array{int64_t(shard.offset),
                                       int64_t(shard.offset + shard.bytes)}},
      {"begin", toJsonArray(shard.begin)},
      {"end", toJsonArray(shard.end)},
      {"checksums", hex(shard.checksums)},
      {"linear_sums", hex(shard.linearSums)},
  };
}

llvm::json::Value indexToJson(const Catalog &catalog,
                              const std::string &generation) {
  llvm::json::Object tensors;
  for (const auto &[name, tensor] : catalog) {
    llvm::json::Array shards;
    for (const StoredShard &shard : tensor.shards)
      shards.push_back(shardToJson(name, shard));
    tensors[name] = llvm::json::Object{
        {"dtype", *runtime::safetensorsDType(tensor.type)},
        {"shape", toJsonArray(tensor.shape)},
        {"sharding", tensor.sharding},
        {"mesh", tensor.mesh},
        {"shards", std::move(shards)},
    };
  }
  return llvm::json::Object{{"format", "spmd-checkpoint"},
                            {"version", 1},
                            {"generation", generation},
                            {"chunk_bytes", int64_t(kChecksumChunkBytes)},
                            {"tensors", std::move(tensors)}};
}

static absl::Status invalid(const std::string &where, const std::string &why) {
  return absl::InvalidArgumentError(fmt::format("{}: {}", where, why));
}

/// `value` as a list of non-negative integers.
static std::optional<std::vector<int64_t>>
countsOf(const llvm::json::Value *value) {
  const llvm::json::Array *array = value ? value->getAsArray() : nullptr;
  if (!array)
    return std::nullopt;
  std::vector<int64_t> counts;
  for (const llvm::json::Value &v : *array) {
    std::optional<uint64_t> n = jsonCount(v);
    if (!n || *n > uint64_t(std::numeric_limits<int64_t>::max()))
      return std::nullopt;
    counts.push_back(int64_t(*n));
  }
  return counts;
}

/// One shard of the index; `where` names it in errors.
static absl::StatusOr<StoredShard> shardFromJson(const llvm::json::Value &v,
                                                 const std::string &where) {
  const llvm::json::Object *object = v.getAsObject();
  if (!object)
    return invalid(where, "a shard is not an object");
  StoredShard shard;
  std::optional<llvm::StringRef> file = object->getString("file");
  std::optional<std::vector<int64_t>> range =
      countsOf(object->get("byte_range"));
  std::optional<std::vector<int64_t>> begin = countsOf(object->get("begin"));
  std::optional<std::vector<int64_t>> end = countsOf(object->get("end"));
  const llvm::json::Array *sums = object->getArray("checksums");
  if (!file || !range || range->size() != 2 || (*range)[0] > (*range)[1] ||
      !begin || !end || !sums)
    return invalid(where, "a shard lacks \"file\", \"byte_range\" [begin, "
                          "end], \"begin\", \"end\" or \"checksums\"");
  shard.file = file->str();
  shard.offset = (*range)[0];
  shard.bytes = (*range)[1] - (*range)[0];
  shard.begin = std::move(*begin);
  shard.end = std::move(*end);
  auto read = [&](const llvm::json::Array &texts,
                  std::vector<uint64_t> &values) {
    for (const llvm::json::Value &sum : texts) {
      std::optional<llvm::StringRef> hex = sum.getAsString();
      uint64_t value = 0;
      if (!hex || hex->size() != 16 || hex->getAsInteger(16, value))
        return false;
      values.push_back(value);
    }
    return true;
  };
  // Linear sums are optional (checkpoints saved before them have none),
  // but if present, they are as checksums are.
  const llvm::json::Value *linear = object->get("linear_sums");
  if (linear && !linear->getAsArray())
    return invalid(where, "\"linear_sums\" is not an array");
  if (!read(*sums, shard.checksums) ||
      (linear && !read(*linear->getAsArray(), shard.linearSums)))
    return invalid(where, "a checksum is not 16 hexadecimal digits");
  uint64_t chunks =
      (shard.bytes + kChecksumChunkBytes - 1) / kChecksumChunkBytes;
  if (linear && shard.linearSums.size() != chunks)
    return invalid(where,
                   fmt::format("a shard of {} bytes has {} linear "
                               "sums, not {}",
                               shard.bytes, shard.linearSums.size(), chunks));
  if (shard.checksums.size() != chunks)
    return invalid(where,
                   fmt::format("a shard of {} bytes has {} checksums, "
                               "not {}",
                               shard.bytes, shard.checksums.size(), chunks));
  return shard;
}

absl::Status addShardsFromJson(llvm::StringRef json, Catalog &catalog) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed)
    return toStatus(parsed.takeError(), absl::StatusCode::kInternal);
  const llvm::json::Array *shards = parsed->getAsArray();
  if (!shards)
    return absl::InternalError("a process's shard list is not an array");
  for (const llvm::json::Value &v : *shards) {
    const llvm::json::Object *object = v.getAsObject();
    std::optional<llvm::StringRef> name =
        object ? object->getString("tensor") : std::nullopt;
    auto tensor = name ? catalog.find(name->str()) : catalog.end();
    if (tensor == catalog.end())
      return absl::InternalError("a shard of no tensor being saved");
    absl::StatusOr<StoredShard> shard = shardFromJson(v, "a process's shards");
    if (!shard.ok())
      return shard.status();
    tensor->second.shards.push_back(std::move(*shard));
  }
  return absl::OkStatus();
}

/// The tensors of a checkpoint's index `json`, read from `path`.
static absl::StatusOr<Catalog> catalogFromIndex(const llvm::json::Value &json,
                                                const std::string &path,
                                                const TensorNames &wanted,
                                                std::string *generation) {
  const llvm::json::Object *index = json.getAsObject();
  if (!index || index->getString("format") != "spmd-checkpoint")
    return invalid(path, "not a checkpoint index (\"format\" is not "
                         "\"spmd-checkpoint\")");
  if (index->getInteger("version") != 1 ||
      index->getInteger("chunk_bytes") != int64_t(kChecksumChunkBytes))
    return invalid(path, "a checkpoint index of another version");
  const llvm::json::Object *tensors = index->getObject("tensors");
  if (!tensors)
    return invalid(path, "no \"tensors\" object");
  if (generation)
    *generation = index->getString("generation").value_or("").str();
  Catalog catalog;
  for (const auto &[key, value] : *tensors) {
    if (!wanted.count(key.str()))
      continue;
    std::string where = fmt::format("{}: tensor '{}'", path, key.str());
    const llvm::json::Object *object = value.getAsObject();
    std::optional<llvm::StringRef> dtype =
        object ? object->getString("dtype") : std::nullopt;
    std::optional<runtime::ElementType> type =
        dtype ? runtime::fromSafetensorsDType(*dtype) : std::nullopt;
    std::optional<std::vector<int64_t>> shape =
        object ? countsOf(object->get("shape")) : std::nullopt;
    const llvm::json::Array *shards =
        object ? object->getArray("shards") : nullptr;
    if (!type || !shape || !shards)
      return invalid(where, "no known \"dtype\", \"shape\" or \"shards\"");
    StoredTensor tensor{*type, std::move(*shape), {}, "", nullptr};
    if (std::optional<llvm::StringRef> sharding = object->getString("sharding"))
      tensor.sharding = sharding->str();
    for (const llvm::json::Value &v : *shards) {
      absl::StatusOr<StoredShard> shard = shardFromJson(v, where);
      if (!shard.ok())
        return shard.status();
      tensor.shards.push_back(std::move(*shard));
    }
    catalog.emplace(key.str(), std::move(tensor));
  }
  return catalog;
}

//===----------------------------------------------------------------------===//
// Safetensors files and hub folders
//===----------------------------------------------------------------------===//

/// Adds the tensors `wanted` names of the safetensors file `file` (in
/// `dir`) to `catalog`.
static absl::Status addFileTensors(const std::string &dir,
                                   const std::string &file, Catalog &catalog,
                                   const TensorNames &wanted) {
  std::string path = inFolder(dir, file);
  llvm::Expected<RandomAccessFile> opened =
      RandomAccessFile::open(path, "safetensors file");
  if (!opened)
    return absl::Status(
        cannotOpen(path),
        fmt::format("{}: {}", path, toString(opened.takeError())));
  llvm::Expected<std::vector<runtime::SafetensorsEntry>> entries =
      runtime::readSafetensorsHeader(*opened);
  if (!entries)
    return toStatus(entries.takeError());
  for (runtime::SafetensorsEntry &entry : *entries) {
    if (!wanted.count(entry.name))
      continue;
    llvm::Expected<runtime::ElementType> type = runtime::heldType(entry, path);
    if (!type)
      return toStatus(type.takeError());
    StoredShard shard{file,        entry.offset,
                      entry.bytes, std::vector<int64_t>(entry.shape.size(), 0),
                      entry.shape, {}};
    StoredTensor tensor{*type, entry.shape, {std::move(shard)}, "", nullptr};
    if (!catalog.emplace(entry.name, std::move(tensor)).second)
      return invalid(
          path, fmt::format("tensor '{}' is in another file too", entry.name));
  }
  return absl::OkStatus();
}

/// Whether `file`, named in an index, stays inside the folder.
static bool isPlainRelative(llvm::StringRef file) {
  if (file.empty() || llvm::sys::path::is_absolute(file))
    return false;
  for (llvm::StringRef part : llvm::make_range(llvm::sys::path::begin(file),
                                               llvm::sys::path::end(file)))
    if (part == "..")
      return false;
  return true;
}

/// The tensors `wanted` names of a hub folder: `index` maps names to files
/// ("weight_map"); only their files are read.
static absl::StatusOr<Catalog> catalogFromHub(const llvm::json::Value &json,
                                              const std::string &dir,
                                              const std::string &path,
                                              const TensorNames &wanted) {
  const llvm::json::Object *index = json.getAsObject();
  const llvm::json::Object *map =
      index ? index->getObject("weight_map") : nullptr;
  if (!map)
    return invalid(path, "no \"weight_map\" object");
  std::map<std::string, TensorNames> byFile;
  for (const auto &[name, file] : *map) {
    if (!wanted.count(name.str()))
      continue;
    std::optional<llvm::StringRef> text = file.getAsString();
    if (!text || !isPlainRelative(*text))
      return invalid(path, fmt::format("tensor '{}': its file is not a "
                                       "relative path inside the folder",
                                       name.str()));
    byFile[text->str()].insert(name.str());
  }
  Catalog catalog;
  for (const auto &[file, names] : byFile) {
    if (absl::Status status = addFileTensors(dir, file, catalog, names);
        !status.ok())
      return status;
    for (const std::string &name : names)
      if (!catalog.count(name))
        return invalid(path, fmt::format("tensor '{}' is not in '{}', where "
                                         "the weight map says it is",
                                         name, file));
  }
  return catalog;
}

//===----------------------------------------------------------------------===//
// Checks and the entry point
//===----------------------------------------------------------------------===//

/// The most pieces the shards of one tensor may cut it into (their begins
/// and ends, per dimension): what the overlap check walks.
static constexpr int64_t kMaxPieces = int64_t(1) << 24;
/// The most elements one tensor may hold, as a HostTensor.
static constexpr int64_t kMaxElements = int64_t(1) << 40;

/// Why `tensor`'s shape is not one this process can hold, if it is not.
static absl::Status checkSize(const std::string &where,
                              const StoredTensor &tensor) {
  // Sizes of 0 count as 1 here: strides of the others must stay in range.
  int64_t elements = 1, bound = 1;
  for (int64_t d : tensor.shape) {
    if (std::max<int64_t>(d, 1) > kMaxElements / bound)
      return invalid(where, fmt::format("its shape [{}] holds more than 2^40 "
                                        "elements",
                                        fmt::join(tensor.shape, ", ")));
    bound *= std::max<int64_t>(d, 1);
    elements *= d;
  }
  int64_t bytes = elements * runtime::elementTypeBytes(tensor.type);
  if (bytes > runtime::maxTensorBytes())
    return absl::ResourceExhaustedError(fmt::format(
        "{}: it holds {} bytes, more than one tensor may hold here ({}, "
        "SPMD_MAX_TENSOR_BYTES)",
        where, bytes, runtime::maxTensorBytes()));
  return absl::OkStatus();
}

/// Why a shard of `tensor` is not a box inside it of the right byte count,
/// if it is not.
static absl::Status checkShard(const std::string &where,
                               const StoredTensor &tensor,
                               const StoredShard &shard) {
  bool inside = shard.begin.size() == tensor.shape.size() &&
                shard.end.size() == tensor.shape.size();
  uint64_t elements = 1;
  for (size_t d = 0; inside && d < tensor.shape.size(); ++d) {
    inside = shard.begin[d] <= shard.end[d] && shard.end[d] <= tensor.shape[d];
    elements *= uint64_t(shard.end[d] - shard.begin[d]);
  }
  if (!inside)
    return invalid(where, fmt::format("a shard's box [{}] to [{}] is not "
                                      "inside the shape [{}]",
                                      fmt::join(shard.begin, ", "),
                                      fmt::join(shard.end, ", "),
                                      fmt::join(tensor.shape, ", ")));
  uint64_t width = runtime::elementTypeBytes(tensor.type);
  if (shard.bytes != elements * width)
    return invalid(where, fmt::format("a shard holds {} bytes for {} "
                                      "elements of {} bytes",
                                      shard.bytes, elements, width));
  return absl::OkStatus();
}

/// Why the shards of `tensor` (each inside it) do not store it exactly
/// once, if they do not. The shards' begins and ends cut each dimension
/// into intervals, the tensor into pieces; each shard covers whole pieces,
/// and each piece must be covered once.
static absl::Status checkCoverage(const std::string &where,
                                  const StoredTensor &tensor) {
  size_t rank = tensor.shape.size();
  std::vector<std::vector<int64_t>> cuts(rank);
  int64_t pieces = 1;
  for (size_t d = 0; d < rank; ++d) {
    cuts[d] = {0, tensor.shape[d]};
    for (const StoredShard &shard : tensor.shards) {
      cuts[d].push_back(shard.begin[d]);
      cuts[d].push_back(shard.end[d]);
    }
    llvm::sort(cuts[d]);
    cuts[d].erase(std::unique(cuts[d].begin(), cuts[d].end()), cuts[d].end());
    int64_t intervals = int64_t(cuts[d].size()) - 1;
    if (intervals == 0)
      return absl::OkStatus(); // no elements
    if (pieces > kMaxPieces / intervals)
      return invalid(where, fmt::format("its shards cut it into more than {} "
                                        "pieces",
                                        kMaxPieces));
    pieces *= intervals;
  }
  std::vector<bool> covered(pieces, false);
  int64_t count = 0;
  for (const StoredShard &shard : tensor.shards) {
    // The shard's intervals per dimension, [first, last).
    std::vector<int64_t> first(rank), last(rank);
    bool empty = false;
    for (size_t d = 0; d < rank; ++d) {
      first[d] = llvm::lower_bound(cuts[d], shard.begin[d]) - cuts[d].begin();
      last[d] = llvm::lower_bound(cuts[d], shard.end[d]) - cuts[d].begin();
      empty |= first[d] == last[d];
    }
    if (empty)
      continue;
    std::vector<int64_t> at = first;
    while (true) {
      int64_t piece = 0;
      for (size_t d = 0; d < rank; ++d)
        piece = piece * (int64_t(cuts[d].size()) - 1) + at[d];
      if (covered[piece])
        return invalid(where, "two of its shards overlap");
      covered[piece] = true;
      ++count;
      size_t d = rank;
      while (d > 0 && ++at[d - 1] == last[d - 1]) {
        at[d - 1] = first[d - 1];
        --d;
      }
      if (d == 0)
        break;
    }
  }
  if (count != pieces)
    return invalid(where, "its shards leave some of its elements out");
  return absl::OkStatus();
}

/// The JSON of the file at `path`.
static absl::StatusOr<llvm::json::Value> readJson(const std::string &path) {
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> text =
      readRegularFile(path, kMaxIndexBytes, "index");
  if (!text)
    return absl::Status(
        cannotOpen(path),
        fmt::format("{}: {}", path, toString(text.takeError())));
  // An index nests 6 levels: object, tensors, tensor, shards, shard, bounds.
  llvm::Expected<llvm::json::Value> json =
      parseJson((*text)->getBuffer(), /*maxDepth=*/16);
  if (!json)
    return invalid(path, toString(json.takeError()));
  return std::move(*json);
}

/// Whether `dir` holds what an unfinished save leaves.
static bool holdsUnfinishedSave(const std::string &dir) {
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (isSaveFile(llvm::sys::path::filename(it->path())))
      return true;
  return false;
}

/// The catalog of a folder, from the first index it holds.
static absl::StatusOr<Catalog> catalogOfFolder(const std::string &dir,
                                               const TensorNames &wanted,
                                               std::string *generation) {
  auto inDir = [&](const char *file) { return inFolder(dir, file); };
  if (llvm::sys::fs::exists(inDir(kIndexFile))) {
    absl::StatusOr<llvm::json::Value> json = readJson(inDir(kIndexFile));
    if (!json.ok())
      return json.status();
    return catalogFromIndex(*json, inDir(kIndexFile), wanted, generation);
  }
  if (llvm::sys::fs::exists(inDir(kHubIndexFile))) {
    absl::StatusOr<llvm::json::Value> json = readJson(inDir(kHubIndexFile));
    if (!json.ok())
      return json.status();
    return catalogFromHub(*json, dir, inDir(kHubIndexFile), wanted);
  }
  Catalog catalog;
  if (llvm::sys::fs::exists(inDir(kHubSingleFile))) {
    if (absl::Status status =
            addFileTensors(dir, kHubSingleFile, catalog, wanted);
        !status.ok())
      return status;
    return catalog;
  }
  return absl::NotFoundError(fmt::format(
      "no checkpoint in '{}': it holds no {}, {} or {}{}", dir, kIndexFile,
      kHubIndexFile, kHubSingleFile,
      holdsUnfinishedSave(dir)
          ? " (only the files of a save that did not finish: the checkpoint "
            "is incomplete)"
          : ""));
}

absl::StatusOr<Catalog> readCatalog(const std::string &path,
                                    const TensorNames &wanted,
                                    std::string *generation) {
  absl::StatusOr<Catalog> catalog;
  // The folder shard files are named in, and the file errors name.
  std::string dir = path, source = path;
  llvm::StringRef file = llvm::sys::path::filename(path);
  if (llvm::sys::fs::is_directory(path)) {
    catalog = catalogOfFolder(path, wanted, generation);
    for (const char *index : {kHubIndexFile, kIndexFile})
      if (llvm::sys::fs::exists(inFolder(dir, index)))
        source = inFolder(dir, index);
  } else if (file == kIndexFile || file == kHubIndexFile) {
    // An index named itself: its folder ("." for a bare name).
    llvm::StringRef folder = llvm::sys::path::parent_path(path);
    return readCatalog(folder.empty() ? "." : folder.str(), wanted, generation);
  } else if (llvm::sys::fs::exists(path)) {
    dir = llvm::sys::path::parent_path(path).str();
    catalog = Catalog();
    if (absl::Status status = addFileTensors(dir, file.str(), *catalog, wanted);
        !status.ok())
      return status;
  } else {
    return absl::NotFoundError(
        fmt::format("'{}': no such checkpoint folder or file", path));
  }
  if (!catalog.ok())
    return catalog.status();
  for (auto &[name, tensor] : *catalog) {
    std::string where = fmt::format("{}: tensor '{}'", source, name);
    if (absl::Status status = checkSize(where, tensor); !status.ok())
      return status;
    for (const StoredShard &shard : tensor.shards)
      if (absl::Status status = checkShard(where, tensor, shard); !status.ok())
        return status;
    if (absl::Status status = checkCoverage(where, tensor); !status.ok())
      return status;
    for (StoredShard &shard : tensor.shards) {
      if (!isPlainRelative(shard.file))
        return invalid(where, "a shard's file is not a relative path inside "
                              "the folder");
      shard.file = inFolder(dir, shard.file);
    }
  }
  return catalog;
}

} // namespace spmd::detail
