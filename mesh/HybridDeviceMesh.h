//===- HybridDeviceMesh.h - Meshes spanning several processes ---*- C++ -*-===//
//
// A HybridMesh is the product of an ICI mesh (devices inside one process,
// fast interconnect) and a DCN mesh (processes, slow network). Along every
// axis the DCN index is major, so each process owns a contiguous block of
// device ids: process p owns p*L .. p*L+L-1 with L = prod(ici_mesh_shape).
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_MESH_HYBRIDDEVICEMESH_H
#define SPMD_MESH_HYBRIDDEVICEMESH_H

#include "mesh/DeviceMesh.h"

namespace spmd {

class HybridDeviceMesh {
public:
  /// `dcnShape` empty means a single process (all ones).
  static llvm::Expected<HybridDeviceMesh> create(std::vector<std::string> axisNames,
                                           std::vector<int64_t> iciShape,
                                           std::vector<int64_t> dcnShape = {});

  /// Loads a YAML or JSON configuration file (see MeshConfig.h).
  static llvm::Expected<HybridDeviceMesh> fromFile(llvm::StringRef path);

  const DeviceMesh &mesh() const { return mesh_; }
  llvm::ArrayRef<int64_t> iciShape() const { return iciShape_; }
  llvm::ArrayRef<int64_t> dcnShape() const { return dcnShape_; }
  int64_t numProcesses() const { return product(dcnShape_); }
  int64_t devicesPerProcess() const { return product(iciShape_); }

  int64_t processOf(int64_t device) const {
    return device / devicesPerProcess();
  }
  /// Device ids owned by `process`, in increasing order.
  llvm::SmallVector<int64_t> devicesOf(int64_t process) const;

private:
  HybridDeviceMesh(DeviceMesh mesh, std::vector<int64_t> ici, std::vector<int64_t> dcn)
      : mesh_(std::move(mesh)), iciShape_(std::move(ici)),
        dcnShape_(std::move(dcn)) {}

  DeviceMesh mesh_;
  std::vector<int64_t> iciShape_;
  std::vector<int64_t> dcnShape_;
};

} // namespace spmd

#endif // SPMD_MESH_HYBRIDDEVICEMESH_H
