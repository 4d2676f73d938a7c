//===- WindowKernels.cpp - Pooling and depthwise convolutions -------------===//
//
// Ops that slide a window over each channel separately: pooling (max, min,
// sum) and depthwise convolutions, NHWC and NCHW, any strides and
// dilations, f32 and f64. Each output row is accumulated window position by
// window position, in the order the op defines: over channels (contiguous
// in NHWC) or over output columns (NCHW), both vectorised.
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/CpuPath.h"
#include "runtime/exec/Executable.h"
#include "runtime/kernels/Parallel.h"
#include "runtime/kernels/ScalarProgram.h"
#include "runtime/kernels/BodyPatterns.h"
#include "runtime/kernels/DestinationStep.h"
#include "runtime/kernels/ImageWindow.h"
#include "runtime/kernels/StructuredKernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <cstring>

using namespace mlir;

namespace spmd::runtime {

namespace {
/// What a window op computes per window element: a fold, or a
/// multiply-add with a per-channel weight.
enum class Accumulate { Fold, MulAdd };

struct Window : ImageWindow {
  Accumulate accumulate;
  ReductionKind combiner = ReductionKind::Sum;
  bool isF32;
};
} // namespace

/// Output rows [first, last) of the [n, oh] (NHWC) or [n, c, oh] (NCHW)
/// rows; `weights` is the depthwise filter (HWC or CHW).
template <Accumulate a, ReductionKind cb, typename T>
static void slide(const Window &s, const T *in, const T *weights, T *out,
                  int64_t first, int64_t last) {
  auto fold = [&](T acc, T x, T weight) {
    if constexpr (a == Accumulate::MulAdd)
      return acc + x * weight;
    else
      return combine<cb>(acc, x);
  };
  for (int64_t row = first; row < last; ++row) {
    int64_t y = row % s.oh;
    if (s.channelsLast) {
      int64_t b = row / s.oh;
      for (int64_t x = 0; x < s.ow; ++x) {
        T *acc = out + (row * s.ow + x) * s.c;
        for (int64_t i = 0; i < s.kh; ++i)
          for (int64_t j = 0; j < s.kw; ++j) {
            const T *src = in + ((b * s.h + y * s.sh + i * s.dh) * s.w +
                                 x * s.sw + j * s.dw) *
                                    s.c;
            const T *wt = weights ? weights + (i * s.kw + j) * s.c : nullptr;
            for (int64_t ch = 0; ch < s.c; ++ch)
              acc[ch] = fold(acc[ch], src[ch], wt ? wt[ch] : T());
          }
      }
    } else {
      int64_t plane = row / s.oh, ch = plane % s.c;
      T *acc = out + row * s.ow;
      for (int64_t i = 0; i < s.kh; ++i)
        for (int64_t j = 0; j < s.kw; ++j) {
          const T *src =
              in + (plane * s.h + y * s.sh + i * s.dh) * s.w + j * s.dw;
          T weight = weights ? weights[(ch * s.kh + i) * s.kw + j] : T();
          for (int64_t x = 0; x < s.ow; ++x)
            acc[x] = fold(acc[x], src[x * s.sw], weight);
        }
    }
  }
}

template <typename T>
static void slideRows(const Window &s, const T *in, const T *weights, T *out,
                      int64_t first, int64_t last) {
  if (s.accumulate == Accumulate::MulAdd)
    return slide<Accumulate::MulAdd, ReductionKind::Sum>(s, in, weights, out,
                                                         first, last);
  switch (s.combiner) {
  case ReductionKind::Sum:
    return slide<Accumulate::Fold, ReductionKind::Sum>(s, in, weights, out,
                                                       first, last);
  case ReductionKind::Max:
    return slide<Accumulate::Fold, ReductionKind::Max>(s, in, weights, out,
                                                       first, last);
  case ReductionKind::Min:
    return slide<Accumulate::Fold, ReductionKind::Min>(s, in, weights, out,
                                                       first, last);
  case ReductionKind::MaxNum:
    return slide<Accumulate::Fold, ReductionKind::MaxNum>(s, in, weights, out,
                                                          first, last);
  case ReductionKind::MinNum:
    return slide<Accumulate::Fold, ReductionKind::MinNum>(s, in, weights, out,
                                                          first, last);
  case ReductionKind::Prod:
    return slide<Accumulate::Fold, ReductionKind::Prod>(s, in, weights, out,
                                                        first, last);
  }
}

template <typename T>
static void run(const Window &s, const T *in, const T *weights, T *out,
                KernelThreads threads) {
  int64_t rows = s.n * s.oh * (s.channelsLast ? 1 : s.c);
  int64_t work = rows * s.ow * s.kh * s.kw * (s.channelsLast ? s.c : 1);
  KernelThreads parts = threads.atMost(work / (1 << 16));
  parallelFor(parts, rows, [&](int64_t first, int64_t last) {
    onCpuPath([&] { slideRows(s, in, weights, out, first, last); });
  });
}

/// The window of a named pooling or depthwise op whose windows all lie
/// inside its input.
template <typename OpTy>
static std::optional<Window> windowOf(Operation *op, bool channelsLast,
                                      bool depthwise) {
  auto named = llvm::dyn_cast<OpTy>(op);
  if (!named)
    return std::nullopt;
  // Pooling windows are [KH, KW]; depthwise filters HWC or CHW.
  auto window =
      llvm::cast<RankedTensorType>(op->getOperand(1).getType()).getShape();
  bool chwFilter = depthwise && !channelsLast;
  std::optional<ImageWindow> geometry =
      imageWindowOf(named, channelsLast, window[chwFilter ? 1 : 0],
                    window[chwFilter ? 2 : 1]);
  if (!geometry)
    return std::nullopt;
  Window s;
  static_cast<ImageWindow &>(s) = *geometry;
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  if ((!element.isF32() && !element.isF64()) ||
      getElementTypeOrSelf(op->getOperand(0).getType()) != element ||
      (depthwise &&
       getElementTypeOrSelf(op->getOperand(1).getType()) != element))
    return std::nullopt;
  s.isF32 = element.isF32();
  Block &body = *llvm::cast<linalg::LinalgOp>(op).getBlock();
  if (depthwise) {
    if (!isMulAddBody(body))
      return std::nullopt;
    s.accumulate = Accumulate::MulAdd;
  } else {
    std::optional<ReductionKind> combiner =
        foldCombiner(body, body.getArgument(0), body.getArgument(2));
    if (!combiner)
      return std::nullopt;
    s.accumulate = Accumulate::Fold;
    s.combiner = *combiner;
  }
  return s;
}

std::optional<KernelBuilder> windowKernel(Operation *op) {
  std::optional<Window> window;
  for (auto candidate :
       {windowOf<linalg::PoolingNhwcMaxOp>(op, true, false),
        windowOf<linalg::PoolingNhwcMinOp>(op, true, false),
        windowOf<linalg::PoolingNhwcSumOp>(op, true, false),
        windowOf<linalg::PoolingNchwMaxOp>(op, false, false),
        windowOf<linalg::PoolingNchwSumOp>(op, false, false),
        windowOf<linalg::DepthwiseConv2DNhwcHwcOp>(op, true, true),
        windowOf<linalg::DepthwiseConv2DNchwChwOp>(op, false, true)})
    if (candidate)
      window = candidate;
  if (!window)
    return std::nullopt;
  return destinationKernel(
      Output::CopyOfInit,
      [s = *window](llvm::ArrayRef<const HostBuffer *> in, HostBuffer &out,
                    const DeviceContext &ctx) {
        bool weighted = s.accumulate == Accumulate::MulAdd;
        if (s.isF32)
          run<float>(s, in[0]->as<float>(),
                     weighted ? in[1]->as<float>() : nullptr, out.as<float>(),
                     ctx.threads);
        else
          run<double>(s, in[0]->as<double>(),
                      weighted ? in[1]->as<double>() : nullptr,
                      out.as<double>(), ctx.threads);
      });
}

} // namespace spmd::runtime
