//===- ShardingEnumeration.h - Every sharding of a tensor -------*- C++ -*-===//

#ifndef SPMD_TESTS_UNIT_SHARDINGENUMERATION_H
#define SPMD_TESTS_UNIT_SHARDINGENUMERATION_H

#include "sharding/TensorSharding.h"

namespace spmd::testing {

/// Every closed sharding of a rank-`rank` tensor on `mesh`: each axis is
/// either unused or placed on one dimension, in every order. When
/// `withPartial` is set, unused axes may also be partial.
inline std::vector<TensorSharding> allShardings(const DeviceMesh &mesh, unsigned rank,
                                                bool withPartial = false) {
  std::vector<TensorSharding> result;
  std::vector<DimSharding> dims(rank);
  std::vector<std::string> partial;
  std::vector<bool> used(mesh.rank(), false);
  // Appends unused axes to dimensions in all orders; recursion over the
  // number of axes still to place keeps every ordering distinct.
  std::function<void(unsigned)> place = [&](unsigned firstDim) {
    result.emplace_back("mesh", dims, std::vector<std::string>{}, partial);
    for (unsigned d = firstDim; d < rank + (withPartial ? 1 : 0); ++d)
      for (AxisIndex a = 0; a < mesh.rank(); ++a) {
        if (used[a])
          continue;
        used[a] = true;
        std::vector<std::string> &target = d < rank ? dims[d].axes : partial;
        target.push_back(mesh.axisName(a).str());
        place(d);
        target.pop_back();
        used[a] = false;
      }
  };
  place(0);
  return result;
}

} // namespace spmd::testing

#endif
