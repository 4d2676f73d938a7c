//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reads and writes the .npy format (versions 1.0-3.0, little-endian, C
// order) for the runtime's element types: <f4 <f8 <f2 <i1 |b1 <i2 <i4 <i8.
// bf16 has no NumPy type; it is written as <f4 and read from <f4.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_NPY_H
#define SPMD_RUNTIME_NPY_H

#include "runtime/HostTensor.h"

#include "llvm/Support/Error.h"

namespace spmd::runtime {

llvm::Expected<HostTensor> readNpy(llvm::StringRef path);
/// The header of the .npy file `bytes` and where its data starts (in
/// `bytes`, which must outlive the view); the data is checked to be there.
struct NpyView {
  DType type;
  std::vector<int64_t> shape;
  const uint8_t *data;
};
llvm::Expected<NpyView> parseNpyHeader(llvm::StringRef bytes,
                                       llvm::StringRef name);
/// The tensor the .npy file `bytes` holds; errors are prefixed by `name`.
llvm::Expected<HostTensor> parseNpy(llvm::StringRef bytes,
                                    llvm::StringRef name);
/// Converts to `want` when the file holds a compatible type (bf16 from
/// <f4, index from <i8).
llvm::Expected<HostTensor> readNpy(llvm::StringRef path, DType want);
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor);

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_NPY_H
