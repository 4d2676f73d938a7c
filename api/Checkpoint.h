//===- Checkpoint.h - What a checkpoint holds ------------------*- C++ -*-===//
//
// save_checkpoint writes a folder: the shards of each process in a
// safetensors file of its own, named by the save's generation so that a
// new save never overwrites the files of the checkpoint it replaces, and
// `index.json`, renamed into place last, the only file a load starts from.
// A load sees any source (that folder, a safetensors file, a folder of
// published weights) as a catalog: per tensor its type, shape and stored
// shards, each a box of the tensor at a byte range of a file.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_API_CHECKPOINT_H
#define SPMD_API_CHECKPOINT_H

#include "spmd/spmd.h"

#include "runtime/exec/HostBuffer.h"

#include "absl/status/statusor.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace spmd::detail {

/// The file a load of a checkpoint folder starts from.
inline constexpr const char *kIndexFile = "index.json";
/// What a hub-style folder of several safetensors files is listed in.
inline constexpr const char *kHubIndexFile = "model.safetensors.index.json";
inline constexpr const char *kHubSingleFile = "model.safetensors";
/// A shard's bytes are checksummed in chunks of this size, so that a load
/// reading part of a shard verifies the chunks it reads whole.
inline constexpr uint64_t kChecksumChunkBytes = uint64_t(256) << 10;

/// One stored piece of a tensor: the box [begin, end) of the tensor, its
/// row-major bytes at [offset, offset + bytes) of `file` (in an index,
/// relative to the checkpoint's folder).
struct StoredShard {
  std::string file;
  uint64_t offset = 0, bytes = 0;
  std::vector<int64_t> begin, end;
  /// xxh3 of each kChecksumChunkBytes chunk of the bytes; empty when the
  /// source has none (a plain safetensors file).
  std::vector<uint64_t> checksums;
  /// The linearSum of each chunk: processes that each read a part of a
  /// chunk verify it together. Empty when the source has none.
  std::vector<uint64_t> linearSums;
};

struct StoredTensor {
  runtime::ElementType type = runtime::ElementType::F32;
  std::vector<int64_t> shape;
  std::vector<StoredShard> shards;
  /// As save_checkpoint recorded it (informational): the sharding and mesh.
  std::string sharding;
  llvm::json::Value mesh = nullptr;
};

using Catalog = std::map<std::string, StoredTensor>;

using TensorNames = std::set<std::string>;

/// The catalog of the tensors `wanted` names that `path` holds: a
/// checkpoint folder, a safetensors file, or a folder of published weights,
/// shard files named by their paths. Only the files holding them are read,
/// and every one's shards are checked to lie in it, to match its type, and
/// to cover it exactly once.
/// An index's save generation in `generation` (empty for other sources).
absl::StatusOr<Catalog> readCatalog(const std::string &path,
                                    const TensorNames &wanted,
                                    std::string *generation = nullptr);

/// Every process's outcome of a step on `bytes` bytes (which sets how long
/// a process waits for the others), on every process: each keeps its own
/// error; the others learn which process failed. Every process calls it.
absl::Status agree(absl::Status local, const std::string &what, int64_t bytes);
/// The bytes of `tensors`, whole.
int64_t globalBytes(const std::map<std::string, ShardedTensor> &tensors);

/// Where load_checkpoint places each tensor.
using LoadTargets = std::map<std::string, std::pair<Mesh, PartitionSpec>>;

/// Chunk `chunk` of shard `shard` of a tensor, which a process read only
/// part of and could not verify alone: the `bytes` of it that the process
/// owns (it is the first holding their boxes), and their linear `sum`.
/// With the other processes' parts, they add up to the chunk.
struct UnverifiedRun {
  std::string tensor, file;
  uint64_t shard, chunk, bytes, sum;
  /// The chunk's size, its linear sum in the index, and where the shard
  /// starts in its file (for errors).
  uint64_t chunkBytes, expected, shardOffset;
};

/// load_checkpoint's work on this process alone: no exchange with the
/// other processes (so it may run beside programs that exchange).
/// The save it read in `generation`, as readCatalog gives it; the bytes
/// read that it could not verify alone added to `unverified` if given.
absl::StatusOr<std::map<std::string, ShardedTensor>>
loadOnThisProcess(const std::string &path, const LoadTargets &targets,
                  std::string *generation = nullptr,
                  std::vector<UnverifiedRun> *unverified = nullptr);

/// The file process `process` writes its shards to in the save
/// `generation` (13 hex digits).
std::string saveFileName(llvm::StringRef generation, int process);
/// Whether `name` is a file a save writes (saveFileName), one of them or the
/// index unfinished.
bool isSaveFile(llvm::StringRef name);

/// The code of an error opening `path`: `NotFound` if nothing is there,
/// else `FailedPrecondition` (a folder or a FIFO where a file should be).
absl::StatusCode cannotOpen(const std::string &path);

/// `file` in the folder `dir`.
std::string inFolder(const std::string &dir, llvm::StringRef file);

/// The checksums of `bytes` by chunk.
std::vector<uint64_t> chunkChecksums(const uint8_t *data, uint64_t bytes);
/// The prime linear sums are taken modulo.
inline constexpr uint64_t kLinearSumPrime = (uint64_t(1) << 61) - 1;
/// The sum, modulo kLinearSumPrime, of each 4-byte little-endian word of a
/// chunk times a fixed pseudo-random weight of its position (below the
/// prime, not 0), over the `bytes` bytes at `data`, which are bytes
/// [at, at + bytes) of the chunk (the other bytes of their words taken as
/// 0). Linear: the sums of disjoint parts of a chunk add up (addLinearSums)
/// to the chunk's, so processes that each read a part verify it together.
/// A change of one word always changes it; other changes leave it equal
/// with a chance of about 2^-61.
uint64_t linearSum(const uint8_t *data, uint64_t bytes, uint64_t at);
/// `a` + `b` modulo kLinearSumPrime.
uint64_t addLinearSums(uint64_t a, uint64_t b);
/// The linearSum of `bytes` by chunk.
std::vector<uint64_t> chunkLinearSums(const uint8_t *data, uint64_t bytes);

/// A shard as the index holds it, with the tensor it belongs to.
llvm::json::Value shardToJson(const std::string &tensor,
                              const StoredShard &shard);
/// The index of a checkpoint: every tensor of `catalog`, with the save's
/// `generation`.
llvm::json::Value indexToJson(const Catalog &catalog,
                              const std::string &generation);
/// Adds the shards of a JSON array of shardToJson values (one process's
/// list) to `catalog`'s tensors, which must exist.
absl::Status addShardsFromJson(llvm::StringRef json, Catalog &catalog);

} // namespace spmd::detail

#endif // SPMD_API_CHECKPOINT_H
