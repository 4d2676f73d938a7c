//===- ShardingGrid.h - A sharding drawn as a grid of devices ---*- C++ -*-===//
//
// As JAX's visualize_array_sharding: one box per block of a 1-D or 2-D
// tensor, labelled with the ids of the devices holding it.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_SHARDING_SHARDINGGRID_H
#define SPMD_SHARDING_SHARDINGGRID_H

#include "sharding/ShardLayout.h"

namespace spmd {

/// The grid of `layout`; an error for tensors of other ranks.
llvm::Expected<std::string> drawShardingGrid(const ShardLayout &layout);

} // namespace spmd

#endif // SPMD_SHARDING_SHARDINGGRID_H
