//===- ShapeMaterializers.cpp - Local forms of ops with shape attributes --===//
//
// Ops whose shapes are written in attributes or operands (not only in
// types) are rebuilt with local shapes rather than cloned. The rule-driven
// partitioner only splits dimensions these ops keep whole (slices, pads and
// concatenations cut through unsplit dimensions; reshapes split compound
// dimensions through their major factors), so the local op is the global op
// with local sizes.
//
//===----------------------------------------------------------------------===//

#include "partitioner/OpPartitioners.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::spmd;

static Operation *emptyLike(Operation *op, Partitioner &p, ValueRange,
                            TypeRange types) {
  auto type = llvm::cast<RankedTensorType>(types[0]);
  return tensor::EmptyOp::create(p.builder(), op->getLoc(), type.getShape(),
                                 type.getElementType());
}

/// expand_shape and collapse_shape: the same grouping of local sizes.
template <typename ReshapeOp>
static Operation *regroup(Operation *op, Partitioner &p, ValueRange operands,
                          TypeRange types) {
  return ReshapeOp::create(p.builder(), op->getLoc(),
                           llvm::cast<RankedTensorType>(types[0]), operands[0],
                           llvm::cast<ReshapeOp>(op).getReassociationIndices());
}

/// tensor.reshape takes its shape from a tensor: give it the local one.
static Operation *reshape(Operation *op, Partitioner &p, ValueRange operands,
                          TypeRange types) {
  OpBuilder &b = p.builder();
  auto type = llvm::cast<RankedTensorType>(types[0]);
  auto shapeType = llvm::cast<RankedTensorType>(op->getOperand(1).getType());
  SmallVector<Attribute> sizes;
  for (int64_t size : type.getShape())
    sizes.push_back(b.getIntegerAttr(shapeType.getElementType(), size));
  Value shape = arith::ConstantOp::create(
      b, op->getLoc(), DenseElementsAttr::get(shapeType, sizes));
  return tensor::ReshapeOp::create(b, op->getLoc(), type, operands[0], shape);
}

/// Sizes of a slice: split dimensions are whole, so their local size is the
/// local dimension; cut dimensions are unsplit and keep their sizes.
static SmallVector<OpFoldResult>
localSizes(OpBuilder &b, ArrayRef<OpFoldResult> sizes, RankedTensorType full,
           RankedTensorType fullLocal, const llvm::SmallBitVector &dropped) {
  SmallVector<OpFoldResult> result;
  for (auto [d, size] : llvm::enumerate(sizes)) {
    std::optional<int64_t> constant = getConstantIntValue(size);
    if (constant && *constant == full.getDimSize(d))
      result.push_back(b.getIndexAttr(fullLocal.getDimSize(d)));
    else
      result.push_back(size);
  }
  return result;
}

static Operation *extractSlice(Operation *op, Partitioner &p,
                               ValueRange operands, TypeRange types) {
  auto slice = llvm::cast<tensor::ExtractSliceOp>(op);
  OpBuilder &b = p.builder();
  auto sourceLocal = llvm::cast<RankedTensorType>(operands[0].getType());
  SmallVector<OpFoldResult> sizes =
      localSizes(b, slice.getMixedSizes(), slice.getSourceType(), sourceLocal,
                 slice.getDroppedDims());
  IRMapping mapping = p.scalars();
  auto mapAll = [&](SmallVector<OpFoldResult> values) {
    for (OpFoldResult &v : values)
      if (auto value = llvm::dyn_cast<Value>(v))
        v = mapping.lookupOrDefault(value);
    return values;
  };
  SmallVector<OpFoldResult> offsets = mapAll(slice.getMixedOffsets());
  // A cut dimension that arrives split is the window this device's
  // results read (halo exchanged): take all of it, from its start.
  auto result = llvm::cast<RankedTensorType>(types[0]);
  unsigned r = 0;
  for (unsigned d = 0; d < sourceLocal.getRank(); ++d) {
    if (slice.getDroppedDims().test(d))
      continue;
    int64_t global = slice.getSourceType().getDimSize(d);
    std::optional<int64_t> size = getConstantIntValue(slice.getMixedSizes()[d]);
    if (sourceLocal.getDimSize(d) != global && size && *size != global) {
      offsets[d] = b.getIndexAttr(0);
      sizes[d] = b.getIndexAttr(result.getDimSize(r));
    }
    ++r;
  }
  return tensor::ExtractSliceOp::create(b, op->getLoc(), result, operands[0],
                                        offsets, mapAll(sizes),
                                        mapAll(slice.getMixedStrides()));
}

static Operation *pad(Operation *op, Partitioner &p, ValueRange operands,
                      TypeRange types) {
  auto sourceLocal = llvm::cast<RankedTensorType>(operands[0].getType());
  auto result = llvm::cast<RankedTensorType>(types[0]);
  // A padded dimension that arrives as long as the result is the window of
  // this device (halo exchanged, border already filled): nothing to add.
  auto padOp = llvm::cast<tensor::PadOp>(op);
  SmallVector<int64_t> low(padOp.getStaticLow()), high(padOp.getStaticHigh());
  for (int64_t d = 0; d < result.getRank(); ++d)
    if (sourceLocal.getDimSize(d) == result.getDimSize(d))
      low[d] = high[d] = 0;
  auto local = llvm::cast<tensor::PadOp>(cloneLocal(op, p, operands, types));
  local.setStaticLow(low);
  local.setStaticHigh(high);
  return local;
}

static Operation *insertSlice(Operation *op, Partitioner &p,
                              ValueRange operands, TypeRange) {
  auto insert = llvm::cast<tensor::InsertSliceOp>(op);
  OpBuilder &b = p.builder();
  auto sourceLocal = llvm::cast<RankedTensorType>(operands[0].getType());
  // Sizes are the source's; whole dimensions of the source are local.
  SmallVector<OpFoldResult> sizes;
  unsigned s = 0;
  llvm::SmallBitVector dropped = insert.getDroppedDims();
  for (auto [d, size] : llvm::enumerate(insert.getMixedSizes())) {
    if (dropped.test(d)) {
      sizes.push_back(size);
      continue;
    }
    sizes.push_back(b.getIndexAttr(sourceLocal.getDimSize(s++)));
  }
  IRMapping mapping = p.scalars();
  auto mapAll = [&](SmallVector<OpFoldResult> values) {
    for (OpFoldResult &v : values)
      if (auto value = llvm::dyn_cast<Value>(v))
        v = mapping.lookupOrDefault(value);
    return values;
  };
  return tensor::InsertSliceOp::create(b, op->getLoc(), operands[0],
                                       operands[1],
                                       mapAll(insert.getMixedOffsets()), sizes,
                                       mapAll(insert.getMixedStrides()));
}

void mlir::spmd::registerShapeMaterializers(OpPartitionerRegistry &registry) {
  registry.addMaterializer(tensor::EmptyOp::getOperationName(), emptyLike);
  registry.addMaterializer(tensor::ExpandShapeOp::getOperationName(),
                           regroup<tensor::ExpandShapeOp>);
  registry.addMaterializer(tensor::CollapseShapeOp::getOperationName(),
                           regroup<tensor::CollapseShapeOp>);
  registry.addMaterializer(tensor::ReshapeOp::getOperationName(), reshape);
  registry.addMaterializer(tensor::ExtractSliceOp::getOperationName(),
                           extractSlice);
  registry.addMaterializer(tensor::PadOp::getOperationName(), pad);
  registry.addMaterializer(tensor::InsertSliceOp::getOperationName(),
                           insertSlice);
}
