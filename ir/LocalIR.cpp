//===- LocalIR.cpp - IR for what one device computes about itself ---------===//

#include "ir/LocalIR.h"
#include "ir/Namespaces.h"
#include "ir/SpmdOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::spmd;

Value mlir::spmd::shardOffset(OpBuilder &b, Location loc, const MeshInfo &mesh,
                              ArrayRef<AxisIndex> axes, int64_t shardSize) {
  return arith::MulIOp::create(
      b, loc, linearIndex(b, loc, mesh, axes),
      arith::ConstantIndexOp::create(b, loc, shardSize));
}

Value mlir::spmd::linearIndex(OpBuilder &b, Location loc, const MeshInfo &mesh,
                              ArrayRef<AxisIndex> axes) {
  Value index = arith::ConstantIndexOp::create(b, loc, 0);
  for (AxisIndex axis : axes) {
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

Value mlir::spmd::validCount(OpBuilder &b, Location loc, const MeshInfo &mesh,
                             ArrayRef<AxisIndex> axes, int64_t globalSize,
                             int64_t shardSize) {
  return arith::SubIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, globalSize),
      shardOffset(b, loc, mesh, axes, shardSize));
}

TypedAttr mlir::spmd::identityOf(OpBuilder &b, ReductionKind kind, Type type) {
  bool isMax = kind == ReductionKind::Max || kind == ReductionKind::MaxNum;
  if (auto floatType = llvm::dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    switch (kind) {
    case ReductionKind::Sum:
      // -0.0, not +0.0: -0.0 + x is x for every x, -0.0 included.
      return b.getFloatAttr(type, -0.0);
    case ReductionKind::Max:
    case ReductionKind::Min:
      return b.getFloatAttr(type, llvm::APFloat::getInf(semantics, isMax));
    case ReductionKind::MaxNum:
    case ReductionKind::MinNum:
      // maxnumf(NaN, x) is x for every x, NaN included (an infinity would
      // turn a block of NaNs into the infinity).
      return b.getFloatAttr(type, llvm::APFloat::getQNaN(semantics));
    case ReductionKind::Prod:
      return b.getFloatAttr(type, 1.0);
    }
  }
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  llvm::APInt value = kind == ReductionKind::Sum    ? llvm::APInt(width, 0)
                      : kind == ReductionKind::Prod ? llvm::APInt(width, 1)
                      : isMax ? llvm::APInt::getSignedMinValue(width)
                              : llvm::APInt::getSignedMaxValue(width);
  return b.getIntegerAttr(type, value);
}

Value mlir::spmd::keepOnOne(OpBuilder &b, Location loc, Value local,
                            const MeshInfo &mesh, ArrayRef<AxisIndex> axes,
                            TypedAttr identity, int64_t position) {
  Value at = arith::ConstantIndexOp::create(b, loc, position);
  Value isOwner = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        linearIndex(b, loc, mesh, axes), at);
  auto type = llvm::cast<RankedTensorType>(local.getType());
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value filled =
      linalg::FillOp::create(
          b, loc, ValueRange{arith::ConstantOp::create(b, loc, identity)},
          ValueRange{empty})
          .getResult(0);
  return arith::SelectOp::create(b, loc, isOwner, local, filled);
}

int64_t mlir::spmd::elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  // What the runtime holds: the smallest of 1, 2, 4 or 8 bytes (an i12
  // takes 2, an i33 8).
  return llvm::PowerOf2Ceil(llvm::divideCeil(type.getIntOrFloatBitWidth(), 8));
}

/// Whether `value`, a ranked tensor, has a dimension of size 0.
static bool holdsNoElement(Value value) {
  return llvm::is_contained(
      llvm::cast<RankedTensorType>(value.getType()).getShape(), 0);
}

Value mlir::spmd::extractSlice(OpBuilder &b, Location loc,
                               RankedTensorType resultType, Value source,
                               ArrayRef<OpFoldResult> offsets,
                               ArrayRef<OpFoldResult> sizes,
                               ArrayRef<OpFoldResult> strides) {
  if (!resultType)
    resultType = tensor::ExtractSliceOp::inferResultType(
        llvm::cast<RankedTensorType>(source.getType()), sizes);
  if (holdsNoElement(source))
    return tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                   resultType.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, resultType, source, offsets,
                                        sizes, strides);
}

Value mlir::spmd::insertSlice(OpBuilder &b, Location loc, Value source,
                              Value dest, ArrayRef<OpFoldResult> offsets,
                              ArrayRef<OpFoldResult> sizes,
                              ArrayRef<OpFoldResult> strides) {
  if (holdsNoElement(dest)) {
    auto type = llvm::cast<RankedTensorType>(dest.getType());
    return tensor::EmptyOp::create(b, loc, type.getShape(),
                                   type.getElementType());
  }
  return tensor::InsertSliceOp::create(b, loc, source, dest, offsets, sizes,
                                       strides);
}
