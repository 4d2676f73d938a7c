//===- GspmdSharding.h - GSPMD / XLA sharding strings -----------*- C++ -*-===//
//
// Reads and writes the sharding strings of XLA's HloSharding, as found in
// `mhlo.sharding` attributes:
//
//   {replicated}
//   {maximal device=3}
//   {devices=[2,1]0,1}
//   {devices=[2,1,4]<=[8] last_tile_dim_replicate}
//   {devices=[4,2]<=[2,4]T(1,0)}
//
// and converts them to and from a (Mesh, TensorSharding) pair.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_SHARDING_GSPMDSHARDING_H
#define SPMD_SHARDING_GSPMDSHARDING_H

#include "sharding/TensorSharding.h"

namespace spmd {

struct GspmdSharding {
  enum class Kind { Replicated, Maximal, Tiled };

  static llvm::Expected<GspmdSharding> parse(llvm::StringRef text);
  std::string str() const;

  /// The mesh and sharding this string describes for a tensor of rank
  /// `rank`. The mesh has one axis per tile dimension of size > 1, named
  /// "t<dim>" (and "r" for the replicated last tile dimension), with the
  /// tile assignment as its device ids. Replicated and maximal shardings
  /// become fully replicated on a one-device mesh: every device then holds
  /// the value the owner would hold.
  llvm::Expected<std::pair<DeviceMesh, TensorSharding>>
  toSpmd(unsigned rank, llvm::StringRef meshName) const;

  /// One mesh for several shardings of the same devices, so propagation can
  /// relate them: its axes are the common refinement of the shardings'
  /// iota orders (`<=[2,4]` and `<=[4,2]` share `["axis0"=2, "axis1"=2,
  /// "axis2"=2]`). Fails when a device list is not an (optionally
  /// transposed) iota, when device counts differ, or when the orders have
  /// no common refinement; callers then fall back to `toSpmd` per sharding.
  /// `ranks[i]` is the rank of the tensor of `shardings[i]`.
  static llvm::Expected<std::pair<DeviceMesh, std::vector<TensorSharding>>>
  toSpmdCommon(llvm::ArrayRef<GspmdSharding> shardings,
               llvm::ArrayRef<unsigned> ranks, llvm::StringRef meshName);

  /// The GSPMD string of `sharding` on `mesh`. Partial shardings have none.
  static llvm::Expected<GspmdSharding> fromSpmd(const TensorSharding &sharding,
                                                const DeviceMesh &mesh);

  bool operator==(const GspmdSharding &o) const {
    return kind == o.kind && maximalDevice == o.maximalDevice &&
           tileShape == o.tileShape && devices == o.devices &&
           lastTileDimReplicate == o.lastTileDimReplicate;
  }

  Kind kind = Kind::Replicated;
  int64_t maximalDevice = 0;
  /// Tile assignment shape, including the replicated last dimension.
  std::vector<int64_t> tileShape;
  /// Tile assignment, row-major over tileShape (iota forms are expanded).
  std::vector<int64_t> devices;
  bool lastTileDimReplicate = false;
  /// The iota form the devices were written in (`<=[reshape]T(perm)`), or
  /// empty for an explicit list.
  std::vector<int64_t> iotaReshape, iotaPerm;
};

} // namespace spmd

#endif // SPMD_SHARDING_GSPMDSHARDING_H
