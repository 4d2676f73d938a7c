//===- Halo.cpp - Windows over split dimensions ---------------------------===//

#include "partitioner/Halo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::spmd;

/// (loop, coefficient) terms and the constant of a sum of scaled loops.
static std::optional<
    std::pair<SmallVector<std::pair<unsigned, int64_t>>, int64_t>>
linearTerms(AffineExpr expr) {
  SmallVector<std::pair<unsigned, int64_t>> terms;
  int64_t constant = 0;
  std::function<bool(AffineExpr, int64_t)> walk = [&](AffineExpr e,
                                                      int64_t scale) {
    if (auto dim = llvm::dyn_cast<AffineDimExpr>(e)) {
      terms.push_back({dim.getPosition(), scale});
      return true;
    }
    if (auto c = llvm::dyn_cast<AffineConstantExpr>(e)) {
      constant += scale * c.getValue();
      return true;
    }
    auto binary = llvm::dyn_cast<AffineBinaryOpExpr>(e);
    if (!binary)
      return false;
    if (binary.getKind() == AffineExprKind::Add)
      return walk(binary.getLHS(), scale) && walk(binary.getRHS(), scale);
    if (binary.getKind() == AffineExprKind::Mul)
      if (auto c = llvm::dyn_cast<AffineConstantExpr>(binary.getRHS()))
        return walk(binary.getLHS(), scale * c.getValue());
    return false;
  };
  if (!walk(expr, 1))
    return std::nullopt;
  return std::make_pair(terms, constant);
}

/// A static slice reads `source[stride * i + offset]` for result index i:
/// a window of extent 0 on each dimension it cuts (the factor of source
/// dimension d is d, see the slice rule).
static SmallVector<WindowedDim> sliceWindows(tensor::ExtractSliceOp slice) {
  SmallVector<WindowedDim> result;
  ArrayRef<int64_t> source = slice.getSourceType().getShape();
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  for (auto [d, size] : llvm::enumerate(source)) {
    int64_t offset = slice.getStaticOffsets()[d],
            length = slice.getStaticSizes()[d],
            stride = slice.getStaticStrides()[d];
    if (dropped.test(d) || ShapedType::isDynamic(offset) ||
        ShapedType::isDynamic(length) || ShapedType::isDynamic(stride) ||
        stride < 1 || (offset == 0 && length == size && stride == 1))
      continue;
    result.push_back({0, unsigned(d), unsigned(d), stride, 0, offset});
  }
  return result;
}

/// A pad with a constant value reads `source[i - low]` for result index i,
/// the value where that is outside the source (the factor of dimension d
/// is d, see the pad rule).
static SmallVector<WindowedDim> padWindows(tensor::PadOp pad) {
  SmallVector<WindowedDim> result;
  TypedAttr fill;
  Value value = pad.getConstantPaddingValue();
  if (!value || !matchPattern(value, m_Constant(&fill)))
    return result;
  for (auto [d, pair] :
       llvm::enumerate(llvm::zip(pad.getStaticLow(), pad.getStaticHigh()))) {
    auto [low, high] = pair;
    if (ShapedType::isDynamic(low) || ShapedType::isDynamic(high) ||
        (low == 0 && high == 0))
      continue;
    result.push_back({0, unsigned(d), unsigned(d), 1, 0, -low, fill});
  }
  return result;
}

SmallVector<WindowedDim> mlir::spmd::windowedDims(Operation *op) {
  if (auto slice = llvm::dyn_cast<tensor::ExtractSliceOp>(op))
    return sliceWindows(slice);
  if (auto pad = llvm::dyn_cast<tensor::PadOp>(op))
    return padWindows(pad);
  SmallVector<WindowedDim> result;
  auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return result;
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  llvm::SmallBitVector outputLoops(ranges.size());
  for (OpOperand &init : linalgOp.getDpsInitsMutable())
    for (AffineExpr e : linalgOp.getMatchingIndexingMap(&init).getResults())
      if (auto dim = llvm::dyn_cast<AffineDimExpr>(e))
        outputLoops.set(dim.getPosition());
  for (OpOperand *input : linalgOp.getDpsInputOperands()) {
    if (!llvm::isa<RankedTensorType>(input->get().getType()))
      continue;
    AffineMap map = linalgOp.getMatchingIndexingMap(input);
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      if (llvm::isa<AffineDimExpr, AffineConstantExpr>(expr))
        continue;
      auto terms = linearTerms(expr);
      if (!terms)
        continue;
      std::optional<std::pair<unsigned, int64_t>> spatial;
      int64_t extent = 0;
      bool ok = true;
      for (auto [loop, coef] : terms->first) {
        if (outputLoops.test(loop)) {
          ok &= !spatial && coef > 0;
          spatial = {loop, coef};
        } else {
          ok &= coef >= 0 && !ShapedType::isDynamic(ranges[loop]);
          extent += coef * (ranges[loop] - 1);
        }
      }
      if (ok && spatial)
        result.push_back({input->getOperandNumber(), unsigned(d),
                          spatial->first, spatial->second, extent,
                          terms->second});
    }
  }
  return result;
}

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
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      offsets, sizes, strides);
}

Value mlir::spmd::emitHaloWindow(OpBuilder &b, Location loc, Value local,
                                 const WindowedDim &dim, const HaloShape &shape,
                                 const MeshInfo &mesh,
                                 ArrayRef<::spmd::AxisIndex> axes) {
  int64_t n = mesh.mesh.groupSize(axes);
  SmallVector<StringRef> names;
  for (::spmd::AxisIndex axis : axes)
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
