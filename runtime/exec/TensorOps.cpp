//===- TensorOps.cpp - Whole-tensor helpers -------------------------------===//

#include "runtime/exec/TensorOps.h"

#include <algorithm>
#include <cstring>

namespace spmd::runtime {

void copyBox(const HostBuffer &from, llvm::ArrayRef<int64_t> offsets,
             llvm::ArrayRef<int64_t> sizes, HostBuffer &to,
             llvm::ArrayRef<int64_t> toOffsets) {
  copyBox(from.data(), from.shape(), offsets, sizes, to, toOffsets);
}

void copyBox(const uint8_t *from, llvm::ArrayRef<int64_t> fromShape,
             llvm::ArrayRef<int64_t> offsets, llvm::ArrayRef<int64_t> sizes,
             HostBuffer &to, llvm::ArrayRef<int64_t> toOffsets) {
  size_t rank = sizes.size();
  int64_t bytes = elementTypeBytes(to.type());
  if (rank == 0) {
    std::memcpy(to.data(), from, bytes);
    return;
  }
  std::vector<int64_t> fromStrides(rank, 1), toStrides = to.strides();
  for (size_t d = rank - 1; d > 0; --d)
    fromStrides[d - 1] = fromStrides[d] * fromShape[d];
  // Rows of the innermost dimension at a time.
  int64_t row = sizes[rank - 1] * bytes;
  forEachOuterIndex(sizes, 1, [&](llvm::ArrayRef<int64_t> idx) {
    int64_t f = offsets[rank - 1], t = toOffsets[rank - 1];
    for (size_t d = 0; d + 1 < rank; ++d) {
      f += (offsets[d] + idx[d]) * fromStrides[d];
      t += (toOffsets[d] + idx[d]) * toStrides[d];
    }
    std::memcpy(to.data() + t * bytes, from + f * bytes, row);
  });
}

TensorRef piece(const HostBuffer &t, int64_t dim, int64_t k, int64_t size) {
  std::vector<int64_t> shape(t.shape());
  shape[dim] = size;
  std::vector<int64_t> offsets(t.rank(), 0), sizes(t.shape());
  offsets[dim] = k * size;
  sizes[dim] = std::clamp<int64_t>(t.shape()[dim] - k * size, 0, size);
  // Only a piece reaching past the end has zeros to fill.
  auto out = std::make_shared<HostBuffer>(
      t.type(), shape, sizes[dim] == size ? Init::None : Init::Zero);
  copyBox(t, offsets, sizes, *out, std::vector<int64_t>(t.rank(), 0));
  return out;
}

TensorRef concat(llvm::ArrayRef<TensorRef> parts, int64_t dim) {
  std::vector<int64_t> shape(parts[0]->shape());
  shape[dim] = 0;
  for (const TensorRef &p : parts)
    shape[dim] += p->shape()[dim];
  auto out = std::make_shared<HostBuffer>(parts[0]->type(), shape, Init::None);
  std::vector<int64_t> at(shape.size(), 0);
  for (const TensorRef &p : parts) {
    copyBox(*p, std::vector<int64_t>(p->rank(), 0),
            std::vector<int64_t>(p->shape()), *out, at);
    at[dim] += p->shape()[dim];
  }
  return out;
}

void broadcastFirst(HostBuffer &t) {
  int64_t n = t.numElements(), bytes = elementTypeBytes(t.type());
  // Doubling the filled prefix: log2(n) large copies.
  for (int64_t filled = 1; filled < n; filled *= 2)
    std::memcpy(t.data() + filled * bytes, t.data(),
                std::min(filled, n - filled) * bytes);
}

TensorRef truncate(const HostBuffer &t, int64_t dim, int64_t size) {
  return piece(t, dim, 0, size);
}

/// combine<c> for a kind known at run time.
template <typename T> static T combine(ReductionKind kind, T a, T b) {
  switch (kind) {
  case ReductionKind::Sum:
    return combine<ReductionKind::Sum>(a, b);
  case ReductionKind::Max:
    return combine<ReductionKind::Max>(a, b);
  case ReductionKind::Min:
    return combine<ReductionKind::Min>(a, b);
  case ReductionKind::MaxNum:
    return combine<ReductionKind::MaxNum>(a, b);
  case ReductionKind::MinNum:
    return combine<ReductionKind::MinNum>(a, b);
  case ReductionKind::Prod:
    return combine<ReductionKind::Prod>(a, b);
  }
  llvm_unreachable("every reduction kind combines");
}

/// Native floats: a block of the output at a time, reading every part's
/// block once while it is in cache.
template <ReductionKind c, typename T>
static void reduceNative(llvm::ArrayRef<ElementSpan> parts, T *out,
                         int64_t count) {
  constexpr int64_t kBlock = 2048;
  for (int64_t b = 0; b < count; b += kBlock) {
    int64_t e = std::min(count, b + kBlock);
    const T *first = parts[0].tensor->as<T>() + parts[0].begin;
    for (int64_t i = b; i < e; ++i)
      out[i] = first[i];
    for (size_t p = 1; p < parts.size(); ++p) {
      const T *in = parts[p].tensor->as<T>() + parts[p].begin;
      for (int64_t i = b; i < e; ++i)
        out[i] = combine<c>(out[i], in[i]);
    }
  }
}

template <typename T>
static void reduceNative(llvm::ArrayRef<ElementSpan> parts, ReductionKind kind,
                         T *out, int64_t count) {
  switch (kind) {
  case ReductionKind::Sum:
    return reduceNative<ReductionKind::Sum>(parts, out, count);
  case ReductionKind::Max:
    return reduceNative<ReductionKind::Max>(parts, out, count);
  case ReductionKind::Min:
    return reduceNative<ReductionKind::Min>(parts, out, count);
  case ReductionKind::MaxNum:
    return reduceNative<ReductionKind::MaxNum>(parts, out, count);
  case ReductionKind::MinNum:
    return reduceNative<ReductionKind::MinNum>(parts, out, count);
  case ReductionKind::Prod:
    return reduceNative<ReductionKind::Prod>(parts, out, count);
  }
}

void reduceElements(llvm::ArrayRef<ElementSpan> parts, ReductionKind kind,
                    HostBuffer &out, int64_t outBegin, int64_t count) {
  switch (out.type()) {
  case ElementType::F32:
    return reduceNative(parts, kind, out.as<float>() + outBegin, count);
  case ElementType::F64:
    return reduceNative(parts, kind, out.as<double>() + outBegin, count);
  default:
    break;
  }
  if (isFloat(out.type())) {
    for (int64_t e = 0; e < count; ++e) {
      double v = parts[0].tensor->getFloat(parts[0].begin + e);
      for (size_t p = 1; p < parts.size(); ++p)
        v = combine(kind, v, parts[p].tensor->getFloat(parts[p].begin + e));
      out.setFloat(outBegin + e, v);
    }
    return;
  }
  unsigned width = intWidth(out.type());
  for (int64_t e = 0; e < count; ++e) {
    int64_t v = parts[0].tensor->getInt(parts[0].begin + e);
    for (size_t p = 1; p < parts.size(); ++p) {
      int64_t x = parts[p].tensor->getInt(parts[p].begin + e);
      // Maxima and minima are signed (maxsi); sums wrap to the width.
      v = wrapToWidth(combine(kind, readSigned(v, width), readSigned(x, width)),
                      width);
    }
    out.setInt(outBegin + e, v);
  }
}

void reduceInto(llvm::ArrayRef<TensorRef> parts, ReductionKind kind,
                HostBuffer &out, int64_t begin, int64_t end) {
  llvm::SmallVector<ElementSpan> spans;
  for (const TensorRef &part : parts)
    spans.push_back({part.get(), begin});
  reduceElements(spans, kind, out, begin, end - begin);
}

TensorRef reduce(llvm::ArrayRef<TensorRef> parts, ReductionKind kind) {
  auto out = std::make_shared<HostBuffer>(
      parts[0]->type(), std::vector<int64_t>(parts[0]->shape()), Init::None);
  reduceInto(parts, kind, *out, 0, out->numElements());
  return out;
}

} // namespace spmd::runtime
