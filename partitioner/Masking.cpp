//===- Masking.cpp - Identity in the padding of uneven shards -------------===//
//
// The padding of a shard holds unspecified values. Before a reduction over
// a split dimension whose size does not divide evenly, the padding is set
// to the reduction's identity, on this one code path for every op.
//
//===----------------------------------------------------------------------===//

#include "partitioner/Partitioner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::spmd;

/// This device's index along `axes` (major to minor), as an index value.
static Value linearIndex(OpBuilder &b, Location loc, const MeshInfo &mesh,
                         ArrayRef<::spmd::AxisIndex> axes) {
  Value index = arith::ConstantIndexOp::create(b, loc, 0);
  for (::spmd::AxisIndex axis : axes) {
    Value size =
        arith::ConstantIndexOp::create(b, loc, mesh.mesh.axisSize(axis));
    Value coordinate = AxisIndexOp::create(
        b, loc, b.getIndexType(), b.getStringAttr(mesh.mesh.axisName(axis)),
        mesh.symbol);
    index = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, index, size), coordinate);
  }
  return index;
}

Value mlir::spmd::maskPadding(OpBuilder &b, Location loc, Value local,
                              int64_t dim, int64_t globalSize,
                              ArrayRef<::spmd::AxisIndex> axes,
                              const MeshInfo &mesh, TypedAttr identity) {
  auto type = llvm::cast<RankedTensorType>(local.getType());
  int64_t shardSize = type.getDimSize(dim);
  // valid = clamp(globalSize - index * shardSize, 0, shardSize)
  Value index = linearIndex(b, loc, mesh, axes);
  Value start = arith::MulIOp::create(
      b, loc, index, arith::ConstantIndexOp::create(b, loc, shardSize));
  Value left = arith::SubIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, globalSize), start);
  Value valid = arith::MaxSIOp::create(
      b, loc,
      arith::MinSIOp::create(b, loc, left,
                             arith::ConstantIndexOp::create(b, loc, shardSize)),
      arith::ConstantIndexOp::create(b, loc, 0));
  Value fill = arith::ConstantOp::create(b, loc, identity);

  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{local}, ValueRange{empty},
      ArrayRef<AffineMap>{id, id}, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value position = linalg::IndexOp::create(nb, nloc, dim);
        Value inside = arith::CmpIOp::create(
            nb, nloc, arith::CmpIPredicate::slt, position, valid);
        Value kept = arith::SelectOp::create(nb, nloc, inside, args[0], fill);
        linalg::YieldOp::create(nb, nloc, kept);
      });
  return generic.getResult(0);
}
