//===- Safetensors.h - The safetensors format -------------------*- C++ -*-===//
//
// Reads and writes safetensors files, the format models are published in:
// an 8-byte little-endian header length N, N bytes of JSON mapping each
// tensor's name to its `dtype`, `shape` and `data_offsets` (relative to the
// data that follows the header) plus an optional `__metadata__` object of
// strings, then the raw little-endian data. Every rule of the format is
// checked as its reference reader checks it (the offsets cover the data
// exactly, in order, without holes or overlaps), so a truncated or
// corrupted file is an error naming it and the tensor, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_SAFETENSORS_H
#define SPMD_RUNTIME_SAFETENSORS_H

#include "runtime/exec/HostBuffer.h"

#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace spmd {
class RandomAccessFile;
} // namespace spmd

namespace spmd::runtime {

/// The largest header read, the reference reader's limit.
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = uint64_t(100) << 20;

/// The safetensors name of `type` ("F32", "BF16", "BOOL", ...; index is
/// "I64"); none for integers of other widths, which the format lacks.
std::optional<llvm::StringRef> safetensorsDType(ElementType type);
/// The element type of a safetensors dtype name this runtime holds.
std::optional<ElementType> fromSafetensorsDType(llvm::StringRef name);

/// One tensor of a file: its type, shape and where its bytes lie.
struct SafetensorsEntry {
  std::string name;
  /// None for a dtype of the format this runtime holds no type for (U8,
  /// F8_E4M3, ...): its bytes are checked against its shape, and reading
  /// it is an error (heldType) where it is asked for.
  std::optional<ElementType> type;
  /// As the header names it.
  std::string dtype;
  std::vector<int64_t> shape;
  /// From the start of the file.
  uint64_t offset;
  uint64_t bytes;
};

/// The type of `entry` of the file at `path`; an error naming both if this
/// runtime holds no such type.
llvm::Expected<ElementType> heldType(const SafetensorsEntry &entry,
                                     llvm::StringRef path);

/// The entries of the file held in `bytes`, in the order of their data,
/// checked against its size; errors name `path` and the tensor.
llvm::Expected<std::vector<SafetensorsEntry>>
parseSafetensorsEntries(llvm::StringRef bytes, llvm::StringRef path);
/// The entries of `file`, reading its header only.
llvm::Expected<std::vector<SafetensorsEntry>>
readSafetensorsHeader(const RandomAccessFile &file);
/// Every tensor of the file held in `bytes` (its name in errors: `path`).
llvm::Expected<std::vector<std::pair<std::string, HostBuffer>>>
parseSafetensors(llvm::StringRef bytes, llvm::StringRef path);

/// Checks that the bytes of a `type` tensor are values of it (a bool is
/// 0 or 1); errors name `path` and `name`.
llvm::Error checkSafetensorsValues(ElementType type, const uint8_t *data,
                                   uint64_t bytes, llvm::StringRef path,
                                   llvm::StringRef name);

/// A tensor to write: `data` holds its row-major bytes.
struct SafetensorsTensor {
  std::string name;
  ElementType type;
  std::vector<int64_t> shape;
  const uint8_t *data;
};

/// Writes `tensors` in order to `path` durably (a temporary file synced and
/// renamed over it), `metadata` as `__metadata__`. Returns where each
/// tensor's bytes start in the file.
llvm::Expected<std::vector<uint64_t>>
writeSafetensors(llvm::StringRef path,
                 llvm::ArrayRef<SafetensorsTensor> tensors,
                 const std::map<std::string, std::string> &metadata = {});

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_SAFETENSORS_H
