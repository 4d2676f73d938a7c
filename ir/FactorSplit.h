//===- FactorSplit.h - The factor split an op is computed by ----*- C++ -*-===//
//
// spmd-auto-shard costs each op under one split of its rule's factors over
// mesh axes; several splits may give the same result layout (a column
// split after gathering the input, or a split contraction reduced after),
// so the split is written on the op (`spmd.factor_split`, an array per
// factor of axis names) and spmd-partition computes the op that way: the
// plan runs as it was costed, in time and in memory.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_FACTORSPLIT_H
#define SPMD_IR_FACTORSPLIT_H

#include "ir/Namespaces.h"
#include "mesh/DeviceMesh.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

#include <vector>

namespace mlir::spmd {

/// `split`, the mesh axes of each factor, as `spmd.factor_split` holds it.
ArrayAttr factorSplitAttr(MLIRContext *context, const DeviceMesh &mesh,
                          ArrayRef<AxisList> split);

/// The split written on `op` for a rule of `numFactors` factors over
/// `mesh`, or nullopt where none is written. Fails with a diagnostic on
/// `op` where the attribute is not one list of `mesh`'s axis names per
/// factor, each axis named once.
FailureOr<std::optional<std::vector<AxisList>>>
readFactorSplit(Operation *op, const DeviceMesh &mesh, unsigned numFactors);

} // namespace mlir::spmd

#endif // SPMD_IR_FACTORSPLIT_H
