//===- MeshConfig.h - HybridMesh configuration files ------------*- C++ -*-===//
//
// Loads HybridMesh configuration files, YAML or the same keys in JSON:
//
//   axis_names:     [data, fsdp, tensor]
//   ici_mesh_shape: [1, 4, 1]
//   dcn_mesh_shape: [2, 1, 1]     # optional; all ones when absent
//
// Every error is a ConfigError carrying the file, line, column and key it
// is about, so tools print it as one `file:line:col: error: ...` line.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_MESH_MESHCONFIG_H
#define SPMD_MESH_MESHCONFIG_H

#include "mesh/HybridDeviceMesh.h"

namespace spmd {

/// An error in a configuration file, with its position (1-based).
class ConfigError : public llvm::ErrorInfo<ConfigError> {
public:
  static char ID;
  ConfigError(std::string file, unsigned line, unsigned column,
              std::string message)
      : file(std::move(file)), line(line), column(column),
        message(std::move(message)) {}

  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

  std::string file;
  unsigned line, column;
  std::string message;
};

/// Parses configuration text. `bufferName` names it in diagnostics.
/// `expectedProcesses`, when set, must equal prod(dcn_mesh_shape).
llvm::Expected<HybridDeviceMesh>
parseMeshConfig(llvm::StringRef text, llvm::StringRef bufferName,
                std::optional<int64_t> expectedProcesses = std::nullopt);

/// Why a DCN shape of `described` processes does not fit a run of
/// `started`: prod(dcn_mesh_shape) is the run's process count.
std::string processCountMismatch(int64_t described, int64_t started);

/// Configuration files are small; larger ones are refused unread.
constexpr uint64_t kMaxMeshConfigBytes = 1 << 20;

/// Reads and parses the configuration file at `path` (at most
/// kMaxMeshConfigBytes).
llvm::Expected<HybridDeviceMesh>
loadMeshConfigFile(llvm::StringRef path,
                   std::optional<int64_t> expectedProcesses = std::nullopt);

} // namespace spmd

#endif // SPMD_MESH_MESHCONFIG_H
