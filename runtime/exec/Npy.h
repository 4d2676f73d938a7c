//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reads and writes the .npy format (versions 1.0-3.0, little-endian, C
// order) for the runtime's element types: <f4 <f8 <f2 <i1 |b1 <i2 <i4 <i8.
// bf16 has no NumPy type; it is written as <f4 and read from <f4. Integers
// of other widths (i4, i12, ...) have none either: an iN is written as the
// smallest of int8/16/32/64 holding N bits, sign-extended, and read from
// that type, each value checked to be an iN literal (in [-2^(N-1), 2^N-1]).
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_NPY_H
#define SPMD_RUNTIME_NPY_H

#include "runtime/exec/HostBuffer.h"

#include "llvm/Support/Error.h"

#include <limits>

namespace spmd::runtime {

/// The largest .npy header read (NumPy's own are a few hundred bytes).
inline constexpr uint64_t kMaxNpyHeaderBytes = uint64_t(1) << 16;

/// The tensor in the .npy file at `path`: a regular file (a FIFO, a device
/// or a directory is refused unread) of at most kMaxNpyHeaderBytes plus
/// `maxDataBytes` (callers pass their tensor limit). Errors name the file.
llvm::Expected<HostBuffer>
readNpy(llvm::StringRef path,
        uint64_t maxDataBytes = std::numeric_limits<int64_t>::max());
/// The header of the .npy file `bytes` and where its data starts (in
/// `bytes`, which must outlive the view); the data is checked to be there,
/// exactly as long as the header says, and bools to be 0 or 1.
struct NpyView {
  ElementType type;
  std::vector<int64_t> shape;
  const uint8_t *data;
};
llvm::Expected<NpyView> parseNpyHeader(llvm::StringRef bytes,
                                       llvm::StringRef name);
/// The tensor the .npy file `bytes` holds; errors are prefixed by `name`.
llvm::Expected<HostBuffer> parseNpy(llvm::StringRef bytes,
                                    llvm::StringRef name);
/// Converts to `want` when the file holds a compatible type (bf16 from
/// <f4, index from <i8, iN from its container).
llvm::Expected<HostBuffer>
readNpy(llvm::StringRef path, ElementType want,
        uint64_t maxDataBytes = std::numeric_limits<int64_t>::max());
/// Writes `tensor` to `path`; every write is checked, the close included
/// (a full disk is an error naming the file).
llvm::Error writeNpy(llvm::StringRef path, const HostBuffer &tensor);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_NPY_H
