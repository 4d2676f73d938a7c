//===- TensorKernels.cpp - Constants, tensor creation, slices, reshapes ---===//

#include "runtime/kernels/KernelInterface.h"
#include "runtime/exec/TensorOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>
#include <optional>

using namespace mlir;

namespace spmd::runtime {

namespace {
/// The dtype and static shape of a tensor type.
struct TensorInfo {
  ElementType type;
  std::vector<int64_t> shape;
};
} // namespace

static llvm::Expected<TensorInfo> infoOf(Operation *op, Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return opError(op, "needs statically shaped tensors");
  llvm::Expected<ElementType> dtype = elementTypeOf(tensor.getElementType());
  if (!dtype)
    return opError(op, llvm::toString(dtype.takeError()));
  return TensorInfo{*dtype, std::vector<int64_t>(tensor.getShape())};
}

std::optional<Attribute> constantValueOf(Value v) {
  Attribute value;
  if (auto load = v.getDefiningOp<ml_program::GlobalLoadConstOp>()) {
    auto global = SymbolTable::lookupNearestSymbolFrom<ml_program::GlobalOp>(
        load, load.getGlobalAttr());
    if (global && global.getValue())
      value = *global.getValue();
  } else if (!matchPattern(v, m_Constant(&value))) {
    return std::nullopt;
  }
  auto typed = llvm::dyn_cast_or_null<TypedAttr>(value);
  if (!typed || typed.getType() != v.getType())
    return std::nullopt;
  return value;
}

/// Builds the tensor of a dense (or dense resource) attribute.
llvm::Expected<TensorRef> constantTensor(Operation *op, Attribute value) {
  auto typed = llvm::dyn_cast<TypedAttr>(value);
  if (!typed)
    return opError(op, "unsupported constant");
  llvm::Expected<TensorInfo> info = infoOf(op, typed.getType());
  if (!info)
    return info.takeError();
  // Every branch below writes every element.
  auto tensor =
      std::make_shared<HostBuffer>(info->type, info->shape, Init::None);
  if (auto resource = llvm::dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return opError(op, "the constant's data is elided (" +
                             resource.getRawHandle().getKey() + ")");
    ArrayRef<char> data = blob->getData();
    if (int64_t(data.size()) != tensor->sizeInBytes())
      return opError(op, "the constant's data has the wrong size");
    std::memcpy(tensor->data(), data.data(), data.size());
    tensor->wrapIntegers();
    return tensor;
  }
  auto dense = llvm::dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return opError(op, "unsupported constant");
  Type element = dense.getElementType();
  int64_t bytes = elementTypeBytes(info->type);
  int64_t n = dense.isSplat() ? std::min<int64_t>(1, tensor->numElements())
                              : tensor->numElements();
  if (!dense.isSplat() && element.isIntOrFloat() && !element.isInteger(1) &&
      element.getIntOrFloatBitWidth() == bytes * 8) {
    // Stored packed, as the buffer is (little-endian hosts).
    std::memcpy(tensor->data(), dense.getRawData().data(), n * bytes);
  } else if (isFloat(info->type)) {
    auto it = dense.value_begin<APFloat>();
    for (int64_t i = 0; i < n; ++i, ++it)
      tensor->setFloat(i, (*it).convertToDouble());
  } else {
    auto it = dense.value_begin<APInt>();
    for (int64_t i = 0; i < n; ++i, ++it)
      tensor->setInt(i, info->type == ElementType::I1
                            ? int64_t((*it).getBoolValue())
                            : (*it).getSExtValue());
  }
  if (dense.isSplat())
    broadcastFirst(*tensor);
  return tensor;
}

/// Any constant (ConstantLike): its folded value, made once.
llvm::Expected<Step> buildConstantKernel(Operation *op, KernelContext &ctx) {
  Attribute attr;
  if (op->getNumResults() != 1 || !matchPattern(op, m_Constant(&attr)))
    return opError(op, "a constant without a value");
  unsigned result = ctx.slot(op->getResult(0));
  RValue value;
  if (auto f = llvm::dyn_cast<FloatAttr>(attr)) {
    value = RValue::ofFloat(f.getValueAsDouble());
  } else if (auto i = llvm::dyn_cast<IntegerAttr>(attr)) {
    value = RValue::ofInt(i.getType().isInteger(1)
                              ? int64_t(i.getValue().getBoolValue())
                              : i.getValue().getSExtValue());
  } else {
    llvm::Expected<TensorRef> tensor = constantTensor(op, attr);
    if (!tensor)
      return tensor.takeError();
    value = RValue::ofTensor(*tensor);
  }
  return Step([=](Frame &frame, DeviceContext &) {
    frame.slots[result] = value;
    return llvm::Error::success();
  });
}

/// ml_program.global_load_const: the global's value, built once and
/// shared by every call.
static llvm::Expected<Step> buildGlobalLoadConst(Operation *op,
                                                 KernelContext &ctx) {
  auto load = llvm::cast<ml_program::GlobalLoadConstOp>(op);
  // The verifiers let a global's value be of another type than the global
  // and its loads; read as the loaded type, its bytes would mean other
  // numbers.
  std::optional<Attribute> value = constantValueOf(load.getResult());
  if (!value)
    return opError(op, llvm::formatv("reads global {0}, which holds no value "
                                     "of the loaded type {1}",
                                     load.getGlobalAttr(), load.getType()));
  llvm::Expected<TensorRef> tensor = constantTensor(op, *value);
  if (!tensor)
    return tensor.takeError();
  unsigned result = ctx.slot(load.getResult());
  return Step([=, value = RValue::ofTensor(*tensor)](Frame &frame,
                                                      DeviceContext &) {
    frame.slots[result] = value;
    return llvm::Error::success();
  });
}

/// tensor.gather: for each index tuple, the source slice at it (the
/// gathered dimensions of size one or dropped). Positions outside the
/// source are undefined in MLIR; they read the nearest element, as XLA's
/// gather does (the padding of partitioned indices reads in bounds).
static llvm::Expected<Step> buildGather(Operation *op, KernelContext &ctx) {
  auto gather = llvm::cast<tensor::GatherOp>(op);
  if (!gather.getSource().getType().hasStaticShape() ||
      !gather.getIndices().getType().hasStaticShape())
    return opError(op, "needs statically shaped tensors");
  llvm::Expected<TensorInfo> info = infoOf(op, gather.getResult().getType());
  if (!info)
    return info.takeError();
  std::vector<int64_t> dims(gather.getGatherDims().begin(),
                            gather.getGatherDims().end());
  unsigned source = ctx.slot(gather.getSource()),
           indices = ctx.slot(gather.getIndices()),
           result = ctx.slot(gather.getResult());
  return Step([=, info = *info](Frame &frame, DeviceContext &) {
    const HostBuffer &src = *frame.slots[source].tensor;
    const HostBuffer &idx = *frame.slots[indices].tensor;
    auto out = std::make_shared<HostBuffer>(info.type, info.shape, Init::None);
    llvm::ArrayRef<int64_t> shape = src.shape();
    std::vector<int64_t> strides = src.strides();
    int64_t tuples = idx.numElements() / int64_t(dims.size());
    // The elements of one slice: the source's positions over the dimensions
    // not gathered, in order.
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < int64_t(shape.size()); ++d)
      if (!llvm::is_contained(dims, d))
        kept.push_back(d);
    int64_t sliceSize = 1;
    for (int64_t d : kept)
      sliceSize *= shape[d];
    size_t bytes = elementTypeBytes(src.type());
    const uint8_t *from = src.data();
    uint8_t *to = out->data();
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t base = 0;
      for (size_t j = 0; j < dims.size(); ++j) {
        int64_t position = idx.getInt(t * int64_t(dims.size()) + j);
        position = std::clamp<int64_t>(position, 0, shape[dims[j]] - 1);
        base += position * strides[dims[j]];
      }
      for (int64_t e = 0; e < sliceSize; ++e) {
        int64_t offset = base, rest = e;
        for (int64_t k = int64_t(kept.size()) - 1; k >= 0; --k) {
          offset += (rest % shape[kept[k]]) * strides[kept[k]];
          rest /= shape[kept[k]];
        }
        std::memcpy(to + (t * sliceSize + e) * bytes, from + offset * bytes,
                    bytes);
      }
    }
    frame.slots[result] = RValue::ofTensor(std::move(out));
    return llvm::Error::success();
  });
}

static llvm::Expected<Step> buildEmpty(Operation *op, KernelContext &ctx) {
  llvm::Expected<TensorInfo> info = infoOf(op, op->getResult(0).getType());
  if (!info)
    return info.takeError();
  unsigned result = ctx.slot(op->getResult(0));
  // Its contents are unspecified (as in MLIR); ops that take it as an init
  // overwrite it, so it is not even zeroed.
  return Step([=, info = *info](Frame &frame, DeviceContext &) {
    frame.slots[result] = RValue::ofTensor(
        std::make_shared<HostBuffer>(info.type, info.shape, Init::None));
    return llvm::Error::success();
  });
}

/// Same bytes, another shape (reshapes and casts of static shapes).
static llvm::Expected<Step> buildReshape(Operation *op, KernelContext &ctx) {
  llvm::Expected<TensorInfo> info = infoOf(op, op->getResult(0).getType());
  if (!info)
    return info.takeError();
  unsigned source = ctx.slot(op->getOperand(0));
  unsigned result = ctx.slot(op->getResult(0));
  return Step([=, info = *info](Frame &frame, DeviceContext &) {
    const HostBuffer &in = *frame.slots[source].tensor;
    auto out = std::make_shared<HostBuffer>(info.type, info.shape);
    std::memcpy(out->data(), in.data(), in.sizeInBytes());
    frame.slots[result] = RValue::ofTensor(out);
    return llvm::Error::success();
  });
}

namespace {
/// A strided box inside a tensor: for slicing and inserting.
struct Box {
  std::vector<int64_t> offsets, sizes, strides; // per source dimension
};
} // namespace

/// Whether every element of `box` lies in a tensor of `shape`. Offsets,
/// sizes and strides a program computes may be negative or huge: its first
/// and last element are checked without overflow.
static bool boxFits(const Box &box, llvm::ArrayRef<int64_t> shape) {
  for (size_t d = 0; d < box.sizes.size(); ++d) {
    int64_t offset = box.offsets[d], size = box.sizes[d], span, last;
    if (size < 0 || offset < 0 || offset > shape[d])
      return false;
    if (size == 0)
      continue;
    if (llvm::MulOverflow(size - 1, box.strides[d], span) ||
        llvm::AddOverflow(offset, span, last) || offset >= shape[d] ||
        last < 0 || last >= shape[d])
      return false;
  }
  return true;
}

/// Calls `fn(sourceIndex, boxIndex)` for every element of `box` over a
/// tensor of `shape` (flat row-major indices).
template <typename Fn>
static void forEachInBox(llvm::ArrayRef<int64_t> shape, const Box &box, Fn fn) {
  size_t rank = shape.size();
  std::vector<int64_t> tensorStrides(rank, 1);
  for (int64_t d = int64_t(rank) - 2; d >= 0; --d)
    tensorStrides[d] = tensorStrides[d + 1] * shape[d + 1];
  int64_t total = 1;
  for (int64_t s : box.sizes)
    total *= s;
  std::vector<int64_t> idx(rank, 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t source = 0;
    for (size_t d = 0; d < rank; ++d)
      source += (box.offsets[d] + idx[d] * box.strides[d]) * tensorStrides[d];
    fn(source, flat);
    for (int64_t d = int64_t(rank) - 1; d >= 0; --d) {
      if (++idx[d] < box.sizes[d])
        break;
      idx[d] = 0;
    }
  }
}

/// Offsets, sizes and strides of a slicing op, with dynamic ones read from
/// frame slots at run time.
struct SliceParams {
  std::vector<int64_t> staticOffsets, sizes, strides;
  std::vector<std::pair<unsigned, unsigned>> dynamicOffsets; // (dim, slot)

  Box box(const Frame &frame) const {
    Box b{staticOffsets, sizes, strides};
    for (auto [dim, slot] : dynamicOffsets)
      b.offsets[dim] = frame.slots[slot].i;
    return b;
  }
};

template <typename OpTy>
static llvm::Expected<SliceParams> sliceParams(OpTy op, KernelContext &ctx) {
  SliceParams p;
  // SSA constants count as static (the import folds them; a partitioned
  // program written by hand may still hold them).
  std::optional<SmallVector<int64_t>> sizes =
      getConstantIntValues(op.getMixedSizes());
  std::optional<SmallVector<int64_t>> strides =
      getConstantIntValues(op.getMixedStrides());
  if (!sizes || !strides)
    return opError(op, "dynamic sizes or strides are not supported");
  p.sizes.assign(sizes->begin(), sizes->end());
  p.strides.assign(strides->begin(), strides->end());
  for (auto [d, offset] : llvm::enumerate(op.getMixedOffsets())) {
    std::optional<int64_t> known = getConstantIntValue(offset);
    p.staticOffsets.push_back(known.value_or(0));
    if (!known)
      p.dynamicOffsets.push_back(
          {unsigned(d), ctx.slot(llvm::cast<Value>(offset))});
  }
  return p;
}

static llvm::Expected<Step> buildExtractSlice(Operation *op,
                                              KernelContext &ctx) {
  auto slice = llvm::cast<tensor::ExtractSliceOp>(op);
  llvm::Expected<SliceParams> params = sliceParams(slice, ctx);
  llvm::Expected<TensorInfo> info = infoOf(op, slice.getType());
  if (!params || !info)
    return params ? info.takeError() : params.takeError();
  unsigned source = ctx.slot(slice.getSource());
  unsigned result = ctx.slot(slice.getResult());
  std::string outOfBounds = opErrorText(op, "slice out of bounds");
  return Step([=, p = *params, info = *info](Frame &frame,
                                             DeviceContext &) -> llvm::Error {
    const TensorRef &in = frame.slots[source].tensor;
    Box box = p.box(frame);
    if (!boxFits(box, in->shape()))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     outOfBounds);
    bool unitStrides =
        llvm::all_of(box.strides, [](int64_t s) { return s == 1; });
    // All of it: the same (immutable) buffer.
    if (unitStrides && llvm::equal(box.sizes, in->shape()) &&
        llvm::equal(info.shape, in->shape())) {
      frame.slots[result] = RValue::ofTensor(in);
      return llvm::Error::success();
    }
    auto out = std::make_shared<HostBuffer>(info.type, info.shape, Init::None);
    if (unitStrides && info.shape.size() == box.sizes.size()) {
      copyBox(*in, box.offsets, box.sizes, *out,
              std::vector<int64_t>(box.sizes.size(), 0));
    } else {
      int64_t bytes = elementTypeBytes(info.type);
      forEachInBox(in->shape(), box, [&](int64_t s, int64_t t) {
        std::memcpy(out->data() + t * bytes, in->data() + s * bytes, bytes);
      });
    }
    frame.slots[result] = RValue::ofTensor(out);
    return llvm::Error::success();
  });
}

static llvm::Expected<Step> buildInsertSlice(Operation *op,
                                             KernelContext &ctx) {
  auto insert = llvm::cast<tensor::InsertSliceOp>(op);
  llvm::Expected<SliceParams> params = sliceParams(insert, ctx);
  if (!params)
    return params.takeError();
  unsigned source = ctx.slot(insert.getSource());
  unsigned dest = ctx.slot(insert.getDest());
  unsigned result = ctx.slot(insert.getResult());
  bool destDies = ctx.mayTake(op, insert.getDest());
  std::string outOfBounds = opErrorText(op, "slice out of bounds");
  return Step([=, p = *params](Frame &frame, DeviceContext &) -> llvm::Error {
    const HostBuffer &in = *frame.slots[source].tensor;
    Box box = p.box(frame);
    if (!boxFits(box, frame.slots[dest].tensor->shape()))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     outOfBounds);
    // Into the destination itself where it dies here (a loop's
    // accumulator): a copy of it all per slice would cost O(size) each.
    TensorRef out = takeForWriting(frame.slots[dest], destDies);
    const HostBuffer &into = *out;
    int64_t bytes = elementTypeBytes(into.type());
    if (llvm::all_of(box.strides, [](int64_t s) { return s == 1; }) &&
        in.rank() == int64_t(box.sizes.size()))
      copyBox(in, std::vector<int64_t>(in.rank(), 0), box.sizes, *out,
              box.offsets);
    else
      forEachInBox(into.shape(), box, [&](int64_t s, int64_t t) {
        std::memcpy(out->data() + s * bytes, in.data() + t * bytes, bytes);
      });
    frame.slots[result] = RValue::ofTensor(out);
    return llvm::Error::success();
  });
}

static llvm::Expected<Step> buildPad(Operation *op, KernelContext &ctx) {
  auto pad = llvm::cast<tensor::PadOp>(op);
  llvm::Expected<TensorInfo> info = infoOf(op, pad.getResultType());
  if (!info)
    return info.takeError();
  // Paddings that are SSA constants count as static (the import folds
  // them; a partitioned program written by hand may still hold them).
  std::optional<SmallVector<int64_t>> lowPad =
      getConstantIntValues(pad.getMixedLowPad());
  if (!lowPad || !getConstantIntValues(pad.getMixedHighPad()))
    return opError(op, "dynamic padding is not supported");
  std::vector<int64_t> low(lowPad->begin(), lowPad->end());
  // The padding value: a constant in the region or a value from outside.
  Value padValue = pad.getConstantPaddingValue();
  if (!padValue)
    return opError(op, "the padding value must not depend on the position");
  std::optional<double> constantFloat;
  std::optional<int64_t> constantInt;
  std::optional<unsigned> padSlot;
  if (auto constant = padValue.getDefiningOp<arith::ConstantOp>()) {
    if (auto f = llvm::dyn_cast<FloatAttr>(constant.getValue()))
      constantFloat = f.getValueAsDouble();
    else if (auto i = llvm::dyn_cast<IntegerAttr>(constant.getValue()))
      constantInt = i.getValue().getSExtValue();
  }
  if (!constantFloat && !constantInt)
    padSlot = ctx.slot(padValue);
  unsigned source = ctx.slot(pad.getSource());
  unsigned result = ctx.slot(pad.getResult());
  return Step([=, info = *info](Frame &frame, DeviceContext &) {
    const HostBuffer &in = *frame.slots[source].tensor;
    auto out = std::make_shared<HostBuffer>(info.type, info.shape, Init::None);
    double f = constantFloat.value_or(0);
    int64_t i = constantInt.value_or(0);
    if (padSlot) {
      f = frame.slots[*padSlot].f;
      i = frame.slots[*padSlot].i;
    }
    int64_t n = out->numElements();
    if (n > 0) {
      if (isFloat(info.type))
        out->setFloat(0, constantInt ? double(i) : f);
      else
        out->setInt(0, i);
      broadcastFirst(*out);
    }
    copyBox(in, std::vector<int64_t>(in.rank(), 0),
            std::vector<int64_t>(in.shape()), *out, low);
    frame.slots[result] = RValue::ofTensor(out);
    return llvm::Error::success();
  });
}

static llvm::Expected<Step> buildConcat(Operation *op, KernelContext &ctx) {
  auto concat = llvm::cast<tensor::ConcatOp>(op);
  llvm::Expected<TensorInfo> info = infoOf(op, concat.getResultType());
  if (!info)
    return info.takeError();
  std::vector<unsigned> inputs;
  for (Value v : concat.getInputs())
    inputs.push_back(ctx.slot(v));
  int64_t dim = concat.getDim();
  unsigned result = ctx.slot(concat.getResult());
  return Step([=, info = *info](Frame &frame, DeviceContext &) {
    auto out = std::make_shared<HostBuffer>(info.type, info.shape);
    int64_t bytes = elementTypeBytes(info.type);
    int64_t offset = 0;
    for (unsigned slot : inputs) {
      const HostBuffer &in = *frame.slots[slot].tensor;
      Box box{std::vector<int64_t>(in.rank(), 0),
              std::vector<int64_t>(in.shape()),
              std::vector<int64_t>(in.rank(), 1)};
      box.offsets[dim] = offset;
      forEachInBox(out->shape(), box, [&](int64_t s, int64_t t) {
        std::memcpy(out->data() + s * bytes, in.data() + t * bytes, bytes);
      });
      offset += in.shape()[dim];
    }
    frame.slots[result] = RValue::ofTensor(out);
    return llvm::Error::success();
  });
}

/// Flat index of `indices` (slots) in a tensor of `shape`; none where one
/// is out of bounds (checked first: its flat index could overflow).
static std::optional<int64_t> flatIndex(const Frame &frame,
                                        llvm::ArrayRef<unsigned> indices,
                                        llvm::ArrayRef<int64_t> shape) {
  int64_t flat = 0;
  for (auto [slot, size] : llvm::zip_equal(indices, shape)) {
    int64_t i = frame.slots[slot].i;
    if (i < 0 || i >= size)
      return std::nullopt;
    flat = flat * size + i;
  }
  return flat;
}

static llvm::Expected<Step> buildExtract(Operation *op, KernelContext &ctx) {
  auto extract = llvm::cast<tensor::ExtractOp>(op);
  unsigned source = ctx.slot(extract.getTensor());
  std::vector<unsigned> indices;
  for (Value v : extract.getIndices())
    indices.push_back(ctx.slot(v));
  unsigned result = ctx.slot(extract.getResult());
  std::string outOfBounds = opErrorText(op, "indices out of bounds");
  return Step([=](Frame &frame, DeviceContext &) -> llvm::Error {
    const HostBuffer &in = *frame.slots[source].tensor;
    std::optional<int64_t> flat = flatIndex(frame, indices, in.shape());
    if (!flat)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     outOfBounds);
    frame.slots[result] = isFloat(in.type())
                              ? RValue::ofFloat(in.getFloat(*flat))
                              : RValue::ofInt(in.getInt(*flat));
    return llvm::Error::success();
  });
}

static llvm::Expected<Step> buildInsert(Operation *op, KernelContext &ctx) {
  auto insert = llvm::cast<tensor::InsertOp>(op);
  unsigned scalar = ctx.slot(insert.getScalar());
  unsigned dest = ctx.slot(insert.getDest());
  std::vector<unsigned> indices;
  for (Value v : insert.getIndices())
    indices.push_back(ctx.slot(v));
  unsigned result = ctx.slot(insert.getResult());
  std::string outOfBounds = opErrorText(op, "indices out of bounds");
  return Step([=](Frame &frame, DeviceContext &) -> llvm::Error {
    const HostBuffer &into = *frame.slots[dest].tensor;
    std::optional<int64_t> flat = flatIndex(frame, indices, into.shape());
    if (!flat)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     outOfBounds);
    auto out = std::make_shared<HostBuffer>(into.type(),
                                            std::vector<int64_t>(into.shape()));
    std::memcpy(out->data(), into.data(), into.sizeInBytes());
    const RValue &v = frame.slots[scalar];
    if (isFloat(into.type()))
      out->setFloat(*flat, v.f);
    else
      out->setInt(*flat, v.i);
    frame.slots[result] = RValue::ofTensor(out);
    return llvm::Error::success();
  });
}

static llvm::Expected<Step> buildSplat(Operation *op, KernelContext &ctx) {
  llvm::Expected<TensorInfo> info = infoOf(op, op->getResult(0).getType());
  if (!info)
    return info.takeError();
  std::vector<unsigned> elements;
  for (Value v : op->getOperands())
    elements.push_back(ctx.slot(v));
  bool splat = llvm::isa<tensor::SplatOp>(op);
  unsigned result = ctx.slot(op->getResult(0));
  return Step([=, info = *info](Frame &frame, DeviceContext &) {
    auto out = std::make_shared<HostBuffer>(info.type, info.shape);
    for (int64_t e = 0; e < out->numElements(); ++e) {
      const RValue &v = frame.slots[elements[splat ? 0 : e]];
      if (isFloat(info.type))
        out->setFloat(e, v.f);
      else
        out->setInt(e, v.i);
    }
    frame.slots[result] = RValue::ofTensor(out);
    return llvm::Error::success();
  });
}

static llvm::Expected<Step> buildDim(Operation *op, KernelContext &ctx) {
  auto dim = llvm::cast<tensor::DimOp>(op);
  std::optional<int64_t> index = dim.getConstantIndex();
  auto type = llvm::dyn_cast<RankedTensorType>(dim.getSource().getType());
  if (!index || !type || type.isDynamicDim(*index))
    return opError(op, "needs a constant index into a static shape");
  int64_t size = type.getDimSize(*index);
  unsigned result = ctx.slot(dim.getResult());
  return Step([=](Frame &frame, DeviceContext &) {
    frame.slots[result] = RValue::ofInt(size);
    return llvm::Error::success();
  });
}

void registerTensorKernels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    attachKernel<buildEmpty, tensor::EmptyOp>(context);
    attachKernel<buildReshape, tensor::CollapseShapeOp, tensor::ExpandShapeOp,
                 tensor::ReshapeOp, tensor::CastOp>(context);
    attachKernel<buildExtractSlice, tensor::ExtractSliceOp>(context);
    attachKernel<buildInsertSlice, tensor::InsertSliceOp>(context);
    attachKernel<buildPad, tensor::PadOp>(context);
    attachKernel<buildConcat, tensor::ConcatOp>(context);
    attachKernel<buildExtract, tensor::ExtractOp>(context);
    attachKernel<buildGather, tensor::GatherOp>(context);
    attachKernel<buildInsert, tensor::InsertOp>(context);
    attachKernel<buildSplat, tensor::SplatOp, tensor::FromElementsOp>(context);
    attachKernel<buildDim, tensor::DimOp>(context);
  });
  registry.addExtension(
      +[](MLIRContext *context, ml_program::MLProgramDialect *) {
        attachKernel<buildGlobalLoadConst, ml_program::GlobalLoadConstOp>(
            context);
      });
}

} // namespace spmd::runtime
