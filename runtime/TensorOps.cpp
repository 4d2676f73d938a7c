//===- TensorOps.cpp - Whole-tensor helpers -------------------------------===//

#include "runtime/TensorOps.h"

#include <algorithm>
#include <cstring>

namespace spmd::runtime {

void copyBox(const HostTensor &from, llvm::ArrayRef<int64_t> offsets,
             llvm::ArrayRef<int64_t> sizes, HostTensor &to,
             llvm::ArrayRef<int64_t> toOffsets) {
  size_t rank = sizes.size();
  int64_t bytes = dtypeBytes(from.type());
  for (int64_t s : sizes)
    if (s <= 0)
      return;
  if (rank == 0) {
    std::memcpy(to.data(), from.data(), bytes);
    return;
  }
  std::vector<int64_t> fromStrides = from.strides(), toStrides = to.strides();
  // Copy rows of the innermost dimension at a time.
  int64_t row = sizes[rank - 1] * bytes;
  std::vector<int64_t> idx(rank - 1, 0);
  while (true) {
    int64_t f = offsets[rank - 1], t = toOffsets[rank - 1];
    for (size_t d = 0; d + 1 < rank; ++d) {
      f += (offsets[d] + idx[d]) * fromStrides[d];
      t += (toOffsets[d] + idx[d]) * toStrides[d];
    }
    std::memcpy(to.data() + t * bytes, from.data() + f * bytes, row);
    int64_t d = int64_t(rank) - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < sizes[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

TensorRef piece(const HostTensor &t, int64_t dim, int64_t k, int64_t size) {
  std::vector<int64_t> shape(t.shape());
  shape[dim] = size;
  auto out = std::make_shared<HostTensor>(t.type(), shape);
  std::vector<int64_t> offsets(t.rank(), 0), sizes(t.shape());
  offsets[dim] = k * size;
  sizes[dim] = std::clamp<int64_t>(t.shape()[dim] - k * size, 0, size);
  copyBox(t, offsets, sizes, *out, std::vector<int64_t>(t.rank(), 0));
  return out;
}

TensorRef concat(llvm::ArrayRef<TensorRef> parts, int64_t dim) {
  std::vector<int64_t> shape(parts[0]->shape());
  shape[dim] = 0;
  for (const TensorRef &p : parts)
    shape[dim] += p->shape()[dim];
  auto out = std::make_shared<HostTensor>(parts[0]->type(), shape);
  std::vector<int64_t> at(shape.size(), 0);
  for (const TensorRef &p : parts) {
    copyBox(*p, std::vector<int64_t>(p->rank(), 0),
            std::vector<int64_t>(p->shape()), *out, at);
    at[dim] += p->shape()[dim];
  }
  return out;
}

TensorRef truncate(const HostTensor &t, int64_t dim, int64_t size) {
  return piece(t, dim, 0, size);
}

TensorRef reduce(llvm::ArrayRef<TensorRef> parts, ReductionKind kind) {
  const HostTensor &first = *parts[0];
  auto out = std::make_shared<HostTensor>(first.type(),
                                          std::vector<int64_t>(first.shape()));
  std::memcpy(out->data(), first.data(), first.sizeInBytes());
  int64_t n = out->numElements();
  auto combine = [&](auto a, auto b) {
    switch (kind) {
    case ReductionKind::Sum:
      return a + b;
    case ReductionKind::Max:
      return std::max(a, b);
    case ReductionKind::Min:
      return std::min(a, b);
    }
    return a;
  };
  for (size_t p = 1; p < parts.size(); ++p) {
    const HostTensor &in = *parts[p];
    if (out->type() == DType::F32) {
      float *o = out->as<float>();
      const float *i = in.as<float>();
      for (int64_t e = 0; e < n; ++e)
        o[e] = combine(o[e], i[e]);
    } else if (isFloat(out->type())) {
      for (int64_t e = 0; e < n; ++e)
        out->setFloat(e, combine(out->getFloat(e), in.getFloat(e)));
    } else {
      unsigned width = intWidth(out->type());
      for (int64_t e = 0; e < n; ++e)
        out->setInt(e,
                    wrapToWidth(combine(out->getInt(e), in.getInt(e)), width));
    }
  }
  return out;
}

} // namespace spmd::runtime
