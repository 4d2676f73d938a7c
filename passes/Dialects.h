//===- Dialects.h - The dialects every tool reads ---------------*- C++ -*-===//
//
// spmd-opt, spmd-run and the C++ API accept the same programs: the spmd
// dialect, the input dialects of linalg-on-tensors programs, and what other
// stacks' annotated programs use (shard, tosa, dlti) so they can be
// imported. The passes add the ops' sharding models themselves
// (ir/ShardingModels.h).
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_PASSES_DIALECTS_H
#define SPMD_PASSES_DIALECTS_H

#include "ir/Namespaces.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::spmd {

void registerInputDialects(DialectRegistry &registry);

} // namespace mlir::spmd

#endif // SPMD_PASSES_DIALECTS_H
