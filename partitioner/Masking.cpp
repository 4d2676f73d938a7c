//===- Masking.cpp - Identity in the padding of uneven shards -------------===//
//
// The padding of a shard holds unspecified values. Before a reduction over
// a split dimension whose size does not divide evenly, the padding is set
// to the reduction's identity, on this one code path for every op. The
// same select gives a pad's border its value where a halo window reads
// past the input.
//
//===----------------------------------------------------------------------===//

#include "partitioner/Partitioner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::spmd;

Value mlir::spmd::linearIndex(OpBuilder &b, Location loc, const MeshInfo &mesh,
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

Value mlir::spmd::maskOutside(OpBuilder &b, Location loc, Value local,
                              int64_t dim, Value lo, Value hi, TypedAttr fill) {
  auto type = llvm::cast<RankedTensorType>(local.getType());
  Value fillValue = arith::ConstantOp::create(b, loc, fill);
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
        Value above = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::sge,
                                            position, lo);
        Value below = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::slt,
                                            position, hi);
        Value inside = arith::AndIOp::create(nb, nloc, above, below);
        Value kept =
            arith::SelectOp::create(nb, nloc, inside, args[0], fillValue);
        linalg::YieldOp::create(nb, nloc, kept);
      });
  return generic.getResult(0);
}

Value mlir::spmd::maskPadding(OpBuilder &b, Location loc, Value local,
                              int64_t dim, int64_t globalSize,
                              ArrayRef<::spmd::AxisIndex> axes,
                              const MeshInfo &mesh, TypedAttr identity) {
  auto type = llvm::cast<RankedTensorType>(local.getType());
  int64_t shardSize = type.getDimSize(dim);
  // Valid: positions below globalSize - index * shardSize.
  Value start =
      arith::MulIOp::create(b, loc, linearIndex(b, loc, mesh, axes),
                            arith::ConstantIndexOp::create(b, loc, shardSize));
  Value valid = arith::SubIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, globalSize), start);
  return maskOutside(b, loc, local, dim,
                     arith::ConstantIndexOp::create(b, loc, 0), valid,
                     identity);
}
