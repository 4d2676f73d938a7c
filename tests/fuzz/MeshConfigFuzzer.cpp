//===- MeshConfigFuzzer.cpp - Any bytes as a HybridMesh config ------------===//
//
// Read or refused with an error; never a crash, a hang or an allocation
// beyond the fuzzer's limit.
//
//===----------------------------------------------------------------------===//

#include "mesh/MeshConfig.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  // Files are refused above the limit before they are parsed.
  if (size > spmd::kMaxMeshConfigBytes)
    return 0;
  // Half the inputs also name a process count to check against.
  std::optional<int64_t> processes;
  if (size && data[0] % 2)
    processes = data[0] % 8 + 1;
  llvm::Expected<spmd::HybridDeviceMesh> mesh =
      spmd::parseMeshConfig(text, "fuzz.yaml", processes);
  if (!mesh)
    llvm::consumeError(mesh.takeError());
  return 0;
}
