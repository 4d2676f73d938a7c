//===- HybridDeviceMesh.cpp - Meshes spanning several processes -----------===//

#include "mesh/HybridDeviceMesh.h"
#include "mesh/MeshConfig.h"

#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"

using namespace spmd;

llvm::Expected<HybridDeviceMesh> HybridDeviceMesh::create(std::vector<std::string> names,
                                              std::vector<int64_t> ici,
                                              std::vector<int64_t> dcn) {
  if (dcn.empty())
    dcn.assign(ici.size(), 1);
  if (ici.size() != names.size() || dcn.size() != names.size())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("axis_names has {0} entries but ici_mesh_shape has {1} "
                      "and dcn_mesh_shape has {2}",
                      names.size(), ici.size(), dcn.size()));
  for (size_t i = 0; i < names.size(); ++i)
    if (ici[i] < 1 || dcn[i] < 1)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("axis \"{0}\" has size {1} x {2}; sizes must be >= 1",
                        names[i], dcn[i], ici[i]));

  // Logical coordinate c_i = dcn_i * ici_i_size + ici_i; the device at c is
  // process(dcn coords) * L + position(ici coords).
  // Sizes are checked before anything is allocated: a config may promise
  // any number of devices.
  std::vector<int64_t> shape(names.size());
  std::optional<int64_t> total = 1;
  for (size_t i = 0; i < names.size(); ++i) {
    std::optional<int64_t> size = llvm::checkedMul(dcn[i], ici[i]);
    if (size)
      total = llvm::checkedMul(*total, *size);
    if (!size || !total || *total > DeviceMesh::kMaxDevices)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("the mesh has more than {0} devices",
                        DeviceMesh::kMaxDevices));
    shape[i] = *size;
  }
  int64_t perProcess = product(ici);
  std::vector<int64_t> deviceIds(product(shape));
  llvm::SmallVector<int64_t> dcnCoords(names.size()), iciCoords(names.size());
  for (int64_t pos = 0, e = deviceIds.size(); pos < e; ++pos) {
    llvm::SmallVector<int64_t> coords = delinearize(pos, shape);
    for (size_t i = 0; i < names.size(); ++i) {
      dcnCoords[i] = coords[i] / ici[i];
      iciCoords[i] = coords[i] % ici[i];
    }
    deviceIds[pos] =
        linearize(dcnCoords, dcn) * perProcess + linearize(iciCoords, ici);
  }
  llvm::Expected<DeviceMesh> mesh =
      DeviceMesh::create(std::move(names), std::move(shape), std::move(deviceIds));
  if (!mesh)
    return mesh.takeError();
  return HybridDeviceMesh(std::move(*mesh), std::move(ici), std::move(dcn));
}

llvm::Expected<HybridDeviceMesh> HybridDeviceMesh::fromFile(llvm::StringRef path) {
  return loadMeshConfigFile(path);
}

llvm::SmallVector<int64_t> HybridDeviceMesh::devicesOf(int64_t process) const {
  llvm::SmallVector<int64_t> devices;
  for (int64_t i = 0, l = devicesPerProcess(); i < l; ++i)
    devices.push_back(process * l + i);
  return devices;
}
