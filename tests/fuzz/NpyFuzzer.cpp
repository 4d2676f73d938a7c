//===- NpyFuzzer.cpp - Any bytes as a .npy input --------------------------===//
//
// Read (and converted as spmd-run converts inputs) or refused with an
// error; never a crash or an allocation the file does not back.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/Npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  llvm::Expected<spmd::runtime::HostBuffer> tensor =
      spmd::runtime::parseNpy(bytes, "fuzz.npy");
  if (!tensor) {
    llvm::consumeError(tensor.takeError());
    return 0;
  }
  // Every element is readable.
  volatile double sink = 0;
  for (int64_t i = 0; i < tensor->numElements(); ++i)
    sink = sink + tensor->getAsDouble(i);
  return 0;
}
