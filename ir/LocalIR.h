//===- LocalIR.h - IR for what one device computes about itself -*- C++ -*-===//
//
// Builders shared by the partitioner and the ops' local rebuilds: a
// device's index along mesh axes, where its shard starts, how much of it is
// padding, reductions' identities, and masks.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_IR_LOCALIR_H
#define SPMD_IR_LOCALIR_H

#include "ir/Namespaces.h"
#include "ir/ShardingInterface.h"

namespace mlir::spmd {

/// This device's index along `axes` (major to minor), as an index value.
Value linearIndex(OpBuilder &b, Location loc, const MeshInfo &mesh,
                  ArrayRef<AxisIndex> axes);

/// The global position of this device's first element of a dimension
/// split over `axes` in shards of `shardSize`.
Value shardOffset(OpBuilder &b, Location loc, const MeshInfo &mesh,
                  ArrayRef<AxisIndex> axes, int64_t shardSize);

/// The number of valid (not padding) positions of this device's shard of a
/// dimension of `globalSize` split over `axes` in shards of `shardSize`
/// (negative or above `shardSize` at the ends: compare, do not index).
Value validCount(OpBuilder &b, Location loc, const MeshInfo &mesh,
                 ArrayRef<AxisIndex> axes, int64_t globalSize,
                 int64_t shardSize);

/// The identity of reduction `kind` for elements of `type`.
TypedAttr identityOf(OpBuilder &b, ReductionKind kind, Type type);

/// `local` with the elements of dimension `dim` at positions outside
/// [lo, hi) replaced by `fill`.
Value maskOutside(OpBuilder &b, Location loc, Value local, int64_t dim,
                  Value lo, Value hi, TypedAttr fill);

/// `local` on the device at `position` of each group over `axes`, a tensor
/// of `identity` on the others: a partial value over `axes` whose reduction
/// is that device's `local`.
Value keepOnOne(OpBuilder &b, Location loc, Value local, const MeshInfo &mesh,
                ArrayRef<AxisIndex> axes, TypedAttr identity,
                int64_t position = 0);

/// `tensor.extract_slice` of `source` (of `resultType`, or inferred from
/// `sizes` when null); a `tensor.empty` when `source` holds no element,
/// since upstream's verifier refuses every offset into a dimension of size
/// 0 ("offset 0 is out-of-bounds: 0 >= 0").
Value extractSlice(OpBuilder &b, Location loc, RankedTensorType resultType,
                   Value source, ArrayRef<OpFoldResult> offsets,
                   ArrayRef<OpFoldResult> sizes,
                   ArrayRef<OpFoldResult> strides);
/// `tensor.insert_slice` of `source` into `dest`; a `tensor.empty` when
/// `dest` holds no element (as extractSlice). Each is an op's result.
Value insertSlice(OpBuilder &b, Location loc, Value source, Value dest,
                  ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
                  ArrayRef<OpFoldResult> strides);

/// The bytes one element of a tensor element type takes on a device.
int64_t elementBytes(Type type);

} // namespace mlir::spmd

#endif // SPMD_IR_LOCALIR_H
