//===- ImageWindow.h - Geometry of 2-D sliding windows ----------*- C++ -*-===//
//
// What the convolution, pooling and depthwise kernels share: an image of
// N x C x H x W (NHWC or NCHW), a KH x KW window with strides and
// dilations, and an OH x OW output, read from a named linalg op.
//
//===----------------------------------------------------------------------===//

#ifndef SPMD_RUNTIME_KERNELS_IMAGEWINDOW_H
#define SPMD_RUNTIME_KERNELS_IMAGEWINDOW_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace spmd::runtime {

struct ImageWindow {
  bool channelsLast; // NHWC, else NCHW
  int64_t n, c, h, w, kh, kw, oh, ow, sh, sw, dh, dw;

  int64_t pixels() const { return oh * ow; }
};

/// The window of `op` (input operand 0, output operand 2, window of KH x KW
/// as given), when every window lies inside the input; the evaluator
/// reports the others.
template <typename OpTy>
std::optional<ImageWindow> imageWindowOf(OpTy op, bool channelsLast,
                                         int64_t kh, int64_t kw) {
  auto shape = [&](unsigned i) {
    return llvm::cast<mlir::RankedTensorType>(op->getOperand(i).getType())
        .getShape();
  };
  llvm::ArrayRef<int64_t> in = shape(0), out = shape(2);
  ImageWindow s;
  s.channelsLast = channelsLast;
  if (channelsLast) {
    s.n = in[0], s.h = in[1], s.w = in[2], s.c = in[3];
    s.oh = out[1], s.ow = out[2];
  } else {
    s.n = in[0], s.c = in[1], s.h = in[2], s.w = in[3];
    s.oh = out[2], s.ow = out[3];
  }
  s.kh = kh, s.kw = kw;
  auto pair = [](mlir::DenseIntElementsAttr attr) {
    llvm::SmallVector<int64_t> v = llvm::to_vector(attr.getValues<int64_t>());
    return std::make_pair(v[0], v[1]);
  };
  std::tie(s.sh, s.sw) = pair(op.getStrides());
  std::tie(s.dh, s.dw) = pair(op.getDilations());
  if ((s.oh > 0 && (s.oh - 1) * s.sh + (s.kh - 1) * s.dh >= s.h) ||
      (s.ow > 0 && (s.ow - 1) * s.sw + (s.kw - 1) * s.dw >= s.w))
    return std::nullopt;
  return s;
}

} // namespace spmd::runtime

#endif // SPMD_RUNTIME_KERNELS_IMAGEWINDOW_H
