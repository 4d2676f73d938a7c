//===- SafetensorsFuzzer.cpp - Any bytes as a safetensors file ------------===//
//
// Read or refused with an error; never a crash, a hang, or an allocation
// the file does not back.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/Safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  auto tensors = spmd::runtime::parseSafetensors(bytes, "fuzz.safetensors");
  if (!tensors) {
    llvm::consumeError(tensors.takeError());
    return 0;
  }
  // Every element is readable.
  volatile double sink = 0;
  for (const auto &[name, tensor] : *tensors)
    for (int64_t i = 0; i < tensor.numElements(); ++i)
      sink = sink + tensor.getAsDouble(i);
  return 0;
}
