//===- Halo.cpp - Windows over split dimensions ---------------------------===//

#include "partitioner/Halo.h"

#include "ir/LocalIR.h"
#include "ir/Namespaces.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::spmd;

std::optional<HaloShape> mlir::spmd::haloShape(const WindowedDim &dim,
                                               int64_t factorSize,
                                               int64_t inputSize, int64_t n) {
  int64_t localOut = llvm::divideCeil(factorSize, n);
  int64_t localIn = llvm::divideCeil(inputSize, n);
  int64_t left = 0, right = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t lo = dim.stride * i * localOut + dim.offset;
    int64_t hi =
        dim.stride * ((i + 1) * localOut - 1) + dim.extent + dim.offset + 1;
    left = std::max(left, i * localIn - lo);
    right = std::max(right, hi - (i + 1) * localIn);
  }
  if (left > localIn || right > localIn)
    return std::nullopt;
  int64_t window = dim.stride * (localOut - 1) + dim.extent + 1;
  return HaloShape{left, right, window, localIn, localOut, inputSize};
}

/// `value` cut along `dim` to [offset, offset + size) (offset static or not).
static Value cut(OpBuilder &b, Location loc, Value value, int64_t dim,
                 OpFoldResult offset, int64_t size) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(b.getIndexAttr(d == dim ? size : type.getDimSize(d)));
  offsets[dim] = offset;
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  return extractSlice(b, loc,
                      RankedTensorType::get(shape, type.getElementType()),
                      value, offsets, sizes, strides);
}

Value mlir::spmd::emitHaloWindow(OpBuilder &b, Location loc, Value local,
                                 const WindowedDim &dim, const HaloShape &shape,
                                 const MeshInfo &mesh,
                                 ArrayRef<AxisIndex> axes) {
  assert(shape.left <= shape.localIn && shape.right <= shape.localIn &&
         "halos within the neighbours' shards (haloShape)");
  int64_t n = mesh.mesh.groupSize(axes);
  SmallVector<StringRef> names;
  for (AxisIndex axis : axes)
    names.push_back(mesh.mesh.axisName(axis));
  ArrayAttr axesAttr = b.getStrArrayAttr(names);
  auto shift = [&](Value piece, int64_t by) {
    SmallVector<int64_t> pairs;
    for (int64_t p = 0; p < n; ++p)
      if (p + by >= 0 && p + by < n)
        pairs.append({p, p + by});
    return CollectivePermuteOp::create(b, loc, piece.getType(), piece,
                                       mesh.symbol, axesAttr,
                                       b.getDenseI64ArrayAttr(pairs))
        .getResult();
  };
  SmallVector<Value> parts;
  // The last `left` elements of the left neighbour, the first `right` of
  // the right one (devices at the ends receive zeros: padding).
  if (shape.left > 0)
    parts.push_back(
        shift(cut(b, loc, local, dim.dim,
                  b.getIndexAttr(shape.localIn - shape.left), shape.left),
              +1));
  parts.push_back(local);
  if (shape.right > 0)
    parts.push_back(
        shift(cut(b, loc, local, dim.dim, b.getIndexAttr(0), shape.right), -1));
  Value extended =
      parts.size() == 1
          ? local
          : tensor::ConcatOp::create(b, loc, dim.dim, parts).getResult();
  // Device i's window starts at i * (stride * localOut - localIn) + offset +
  // left in the extended shard.
  int64_t perDevice = dim.stride * shape.localOut - shape.localIn;
  int64_t base = dim.offset + shape.left;
  Value index;
  auto deviceIndex = [&] {
    if (!index)
      index = linearIndex(b, loc, mesh, axes);
    return index;
  };
  auto affine = [&](int64_t scale, int64_t constant) -> Value {
    return arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, deviceIndex(),
                              arith::ConstantIndexOp::create(b, loc, scale)),
        arith::ConstantIndexOp::create(b, loc, constant));
  };
  OpFoldResult start = b.getIndexAttr(base);
  if (perDevice != 0)
    start = affine(perDevice, base);
  Value window = cut(b, loc, extended, dim.dim, start, shape.window);
  if (!dim.fill)
    return window;
  // Window element j is input element stride * i * localOut + offset + j;
  // those outside the input take the fill value.
  Value first = affine(dim.stride * shape.localOut, dim.offset);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value lo = arith::SubIOp::create(b, loc, zero, first);
  Value hi = arith::SubIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, shape.inputSize), first);
  return maskOutside(b, loc, window, dim.dim, lo, hi, dim.fill);
}

std::optional<WindowedDim>
mlir::spmd::readThrough(const WindowedDim &consumer,
                        const WindowedDim &producer) {
  assert(consumer.dim == producer.dim && producer.stride == 1 &&
         producer.extent == 0 && "a shift of the same dimension");
  if (consumer.fill)
    return std::nullopt;
  WindowedDim composed = consumer;
  composed.offset += producer.offset;
  composed.fill = producer.fill;
  return composed;
}

Value mlir::spmd::emitWholeWindow(OpBuilder &b, Location loc, Value local,
                                  const WindowedDim &window, int64_t length) {
  assert(window.stride == 1 && window.extent == 0 && "a shift");
  auto type = llvm::cast<RankedTensorType>(local.getType());
  int64_t size = type.getDimSize(window.dim);
  int64_t low = std::max<int64_t>(0, -window.offset);
  int64_t high = std::max<int64_t>(0, window.offset + length - size);
  Value padded = local;
  if (low > 0 || high > 0) {
    assert(window.fill && "only a window with a fill reads outside");
    SmallVector<int64_t> lows(type.getRank(), 0), highs(type.getRank(), 0);
    SmallVector<int64_t> shape(type.getShape());
    lows[window.dim] = low;
    highs[window.dim] = high;
    shape[window.dim] += low + high;
    Value fill = arith::ConstantOp::create(b, loc, window.fill);
    padded = tensor::PadOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()), local,
        getAsIndexOpFoldResult(b.getContext(), lows),
        getAsIndexOpFoldResult(b.getContext(), highs), fill);
  }
  int64_t start = window.offset + low;
  if (start == 0 &&
      llvm::cast<RankedTensorType>(padded.getType()).getDimSize(window.dim) ==
          length)
    return padded;
  return cut(b, loc, padded, window.dim, b.getIndexAttr(start), length);
}
