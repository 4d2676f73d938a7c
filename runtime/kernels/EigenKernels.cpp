//===- EigenKernels.cpp - Matmuls and convolutions through Eigen ----------===//
//
// Contractions (linalg.matmul, batch_matmul, their transposed forms, any
// generic computing C += A * B) and 2-D convolutions (NHWC/HWCF and
// NCHW/FCHW, any strides and dilations) of f32 and f64 become GEMMs:
// convolutions through an im2col buffer (none for 1x1 kernels with unit
// strides). Output rows are split over the device's threads. Everything
// else falls through to the structured-op evaluator.
//
//===----------------------------------------------------------------------===//

#include "ir/WorkingBytes.h"
#include "runtime/exec/Executable.h"
#include "runtime/exec/TensorOps.h"
#include "runtime/kernels/BodyPatterns.h"
#include "runtime/kernels/Contraction.h"
#include "runtime/kernels/DestinationStep.h"
#include "runtime/kernels/ImageWindow.h"
#include "runtime/kernels/LibraryKernels.h"
#include "runtime/kernels/Parallel.h"
#include "runtime/kernels/StructuredKernels.h"
#include "runtime/kernels/gemm/GemmKernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;

namespace spmd::runtime {

static KernelThreads threadsFor(KernelThreads threads, int64_t macs) {
  return threads.atMost(macs / kMacsPerThread);
}

template <typename T> static GemmFn<T> gemmFn() {
  if constexpr (sizeof(T) == 4)
    return pathGemm;
  else
    return gemmKernels().f64;
}

/// C[m x n] += A[m x k] * B[k x n], or C = A * B unless `accumulate`
/// (row-major, A or B possibly transposed), with the current CPU path's
/// kernel. Threads split the rows, or the columns when there are too few
/// rows for each thread to fill the kernel's register tiles: then each
/// packs only its share of B.
template <typename T>
static void gemm(GemmOperand<const T> a, GemmOperand<const T> b,
                 GemmOperand<T> c, int64_t m, int64_t k, int64_t n,
                 bool accumulate, KernelThreads threads) {
  threads = threadsFor(threads, m * k * n);
  constexpr int64_t kRowsPerThread = 128;
  if (threads.count > 1 && m < kRowsPerThread * threads.count && n > m) {
    // Column blocks of whole vector widths (16 floats, 8 doubles).
    constexpr int64_t kLanes = 64 / sizeof(T);
    int64_t chunks = (n + kLanes - 1) / kLanes;
    parallelFor(threads, chunks, [&](int64_t first, int64_t last) {
      int64_t begin = first * kLanes, end = std::min(n, last * kLanes);
      auto columns = [&](GemmOperand<const T> x) {
        x.data += x.transposed ? begin * x.ld : begin;
        return x;
      };
      gemmFn<T>()(a, columns(b), GemmOperand<T>{c.data + begin, c.ld}, m, k,
                  end - begin, accumulate);
    });
    return;
  }
  parallelFor(threads, m, [&](int64_t first, int64_t last) {
    GemmOperand<const T> rows = a;
    rows.data += a.transposed ? first : first * a.ld;
    gemmFn<T>()(rows, b, GemmOperand<T>{c.data + first * c.ld, c.ld},
                last - first, k, n, accumulate);
  });
}

/// The same with dense row-major operands.
template <typename T>
static void gemm(const T *a, const T *b, T *c, int64_t m, int64_t k, int64_t n,
                 bool accumulate, KernelThreads threads) {
  gemm<T>({a, k}, {b, n}, {c, n}, m, k, n, accumulate, threads);
}

template <typename T> static ElementType elementTypeOf() {
  return sizeof(T) == 4 ? ElementType::F32 : ElementType::F64;
}

/// The element type shared by every operand of `op`, if f32 or f64.
static bool allF32OrF64(Operation *op) {
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  if (!element.isF32() && !element.isF64())
    return false;
  return llvm::all_of(op->getOperandTypes(), [&](Type t) {
    return getElementTypeOrSelf(t) == element;
  });
}

//===--- contractions -----------------------------------------------------===//
//
// Any linalg op computing C += A * B over projected-permutation maps
// (matmul, batch_matmul, their transposed forms, einsum-like generics):
// its loops are grouped into batch, M, N and K dimensions, and each batch
// is one GEMM. Operands whose rows and columns are each one strided
// dimension (row-major or transposed, as weights read through a
// transposing map are) are used where they lie; others are packed.

/// Copies between a strided view and a dense buffer, in view order.
template <typename T, bool ToDense>
static void copyView(const Packing &view, T *strided, T *dense) {
  size_t rank = view.sizes.size();
  int64_t inner = rank ? view.sizes[rank - 1] : 1;
  int64_t innerStride = rank ? view.strides[rank - 1] : 0;
  forEachOuterIndex(view.sizes, 1, [&](llvm::ArrayRef<int64_t> idx) {
    int64_t offset = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      offset += idx[d] * view.strides[d];
    for (int64_t i = 0; i < inner; ++i, ++dense) {
      if constexpr (ToDense)
        *dense = strided[offset + i * innerStride];
      else
        strided[offset + i * innerStride] = *dense;
    }
  });
}

/// The operand packed as a dense [batch, rows, cols] buffer in `scratch`.
template <typename T>
static T *dense(const Packing &view, T *data,
                std::optional<HostBuffer> &scratch) {
  using U = std::remove_const_t<T>;
  scratch.emplace(elementTypeOf<U>(), std::vector<int64_t>{view.elements()},
                  Init::None);
  copyView<U, true>(view, const_cast<U *>(data), scratch->as<U>());
  return scratch->as<U>();
}

namespace {
/// An operand's matrix for each batch: where it lies (`view` set), or in a
/// dense packed copy.
template <typename T> struct Matrices {
  GemmOperand<T> first;
  const Packing *view;
  int64_t size; // of each packed matrix

  GemmOperand<T> at(int64_t b) const {
    GemmOperand<T> m = first;
    m.data += view ? view->batchOffset(b) : b * size;
    return m;
  }
};
} // namespace

/// `view`'s matrices where they lie, else packed densely in `scratch`.
template <typename T>
static Matrices<T> matrices(const Packing &view, T *data, int64_t rows,
                            int64_t cols, std::optional<HostBuffer> &scratch) {
  if (std::optional<GemmOperand<T>> inPlace = matrixOf(view, data, rows, cols))
    return {*inPlace, &view, 0};
  return {GemmOperand<T>{dense(view, data, scratch), cols}, nullptr,
          rows * cols};
}

/// The same matrix read as its transpose.
template <typename T> static GemmOperand<T> transposeOf(GemmOperand<T> m) {
  return {m.data, m.ld, !m.transposed};
}

template <typename T>
static void contract(const Contraction &c, const HostBuffer &a,
                     const HostBuffer &b, HostBuffer &out, bool accumulate,
                     KernelThreads threads) {
  std::optional<HostBuffer> scratchA, scratchB, scratchC;
  // Inputs are only read: their GemmOperand is of const T.
  auto ma = matrices<const T>(c.a, a.as<T>(), c.m, c.k, scratchA);
  auto mb = matrices<const T>(c.b, b.as<T>(), c.k, c.n, scratchB);
  auto mc = matrices<T>(c.c, out.as<T>(), c.m, c.n, scratchC);
  for (int64_t i = 0; i < c.batch; ++i) {
    GemmOperand<T> ci = mc.at(i);
    // GEMMs write row-major C: a transposed one is C^T = B^T A^T, written
    // where it lies, so no copy of C is made.
    if (ci.transposed)
      gemm<T>(transposeOf(mb.at(i)), transposeOf(ma.at(i)), transposeOf(ci),
              c.n, c.k, c.m, accumulate, threads);
    else
      gemm<T>(ma.at(i), mb.at(i), ci, c.m, c.k, c.n, accumulate, threads);
  }
  if (scratchC)
    copyView<T, false>(c.c, out.as<T>(), mc.first.data);
}

void contractF32(const Contraction &c, const HostBuffer &a, const HostBuffer &b,
                 HostBuffer &out, bool accumulate, KernelThreads threads) {
  contract<float>(c, a, b, out, accumulate, threads);
}

std::optional<Contraction> contractionOf(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || !isMulAddBody(*op.getBlock()))
    return std::nullopt;
  return mlir::spmd::contractionLayout(op);
}

std::optional<KernelBuilder> contractionKernel(Operation *op) {
  auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || op->getNumResults() != 1 || !allF32OrF64(op))
    return std::nullopt;
  std::optional<Contraction> contraction = contractionOf(linalgOp);
  if (!contraction)
    return std::nullopt;
  bool accumulate = !isZeroInit(op->getOperands().back());
  return destinationKernel(
      accumulate ? Output::CopyOfInit : Output::Uninitialized,
      [c = *contraction, accumulate](llvm::ArrayRef<const HostBuffer *> in,
                                     HostBuffer &out,
                                     const DeviceContext &ctx) {
        if (c.isF32)
          contractF32(c, *in[0], *in[1], out, accumulate, ctx.threads);
        else
          contract<double>(c, *in[0], *in[1], out, accumulate, ctx.threads);
      });
}

//===--- convolutions -----------------------------------------------------===//

namespace {
/// A 2-D convolution: its window, and F output channels.
struct ConvShape : ImageWindow {
  int64_t f;

  int64_t patch() const { return c * kh * kw; }
  /// 1x1 kernels with unit strides read the input as it is.
  bool direct() const { return kh == 1 && kw == 1 && sh == 1 && sw == 1; }
};
} // namespace

static std::optional<ConvShape> convShapeOf(Operation *op) {
  auto filter =
      llvm::cast<RankedTensorType>(op->getOperand(1).getType()).getShape();
  std::optional<ImageWindow> window;
  int64_t f;
  if (auto conv = llvm::dyn_cast<linalg::Conv2DNhwcHwcfOp>(op)) {
    window = imageWindowOf(conv, true, filter[0], filter[1]); // HWCF
    f = filter[3];
  } else if (auto conv = llvm::dyn_cast<linalg::Conv2DNchwFchwOp>(op)) {
    window = imageWindowOf(conv, false, filter[2], filter[3]); // FCHW
    f = filter[0];
  }
  if (!window)
    return std::nullopt;
  return ConvShape{*window, f};
}

/// The im2col matrix, within the working bytes the plan priced
/// (workingBytes).
template <typename T>
static HostBuffer im2colBuffer(int64_t colBytes, int64_t elements) {
  assert(colBytes >= elements * int64_t(sizeof(T)) &&
         "workingBytes prices the im2col matrix the kernel fills");
  return HostBuffer(elementTypeOf<T>(), {elements}, Init::None);
}

/// NHWC: out[pixels x F] += col[pixels x (KH KW C)] * filter[(KH KW C) x F],
/// col rows built by the thread that multiplies them.
template <typename T>
static void convChannelsLast(const ConvShape &s, const T *in, const T *filter,
                             T *out, bool accumulate, KernelThreads threads,
                             int64_t colBytes) {
  int64_t k = s.patch();
  for (int64_t b = 0; b < s.n; ++b) {
    const T *image = in + b * s.h * s.w * s.c;
    T *result = out + b * s.pixels() * s.f;
    if (s.direct()) {
      // Unit strides and a 1x1 kernel: the image is the column matrix, one
      // block of output rows per image row unless the rows are whole.
      int64_t step = s.ow == s.w ? std::max<int64_t>(s.oh, 1) : 1;
      for (int64_t y = 0; y < s.oh; y += step)
        gemm(image + y * s.w * s.c, filter, result + y * s.ow * s.f,
             step * s.ow, k, s.f, accumulate, threads);
      continue;
    }
    HostBuffer col = im2colBuffer<T>(colBytes, s.pixels() * k);
    T *cols = reinterpret_cast<T *>(col.data());
    parallelFor(threadsFor(threads, s.pixels() * k * s.f), s.pixels(),
                [&](int64_t first, int64_t last) {
                  for (int64_t p = first; p < last; ++p) {
                    int64_t y = p / s.ow, x = p % s.ow;
                    T *row = cols + p * k;
                    for (int64_t i = 0; i < s.kh; ++i)
                      for (int64_t j = 0; j < s.kw; ++j)
                        std::memcpy(row + (i * s.kw + j) * s.c,
                                    image + ((y * s.sh + i * s.dh) * s.w +
                                             x * s.sw + j * s.dw) *
                                                s.c,
                                    s.c * sizeof(T));
                  }
                  gemmFn<T>()({cols + first * k, k}, {filter, s.f},
                              {result + first * s.f, s.f}, last - first, k, s.f,
                              accumulate);
                });
  }
}

/// NCHW: out[F x pixels] += filter[F x (C KH KW)] * col[(C KH KW) x pixels].
template <typename T>
static void convChannelsFirst(const ConvShape &s, const T *in, const T *filter,
                              T *out, bool accumulate, KernelThreads threads,
                              int64_t colBytes) {
  int64_t k = s.patch();
  for (int64_t b = 0; b < s.n; ++b) {
    const T *image = in + b * s.c * s.h * s.w;
    T *result = out + b * s.f * s.pixels();
    if (s.direct() && s.oh == s.h && s.ow == s.w) {
      gemm(filter, image, result, s.f, k, s.pixels(), accumulate, threads);
      continue;
    }
    HostBuffer col = im2colBuffer<T>(colBytes, k * s.pixels());
    T *cols = reinterpret_cast<T *>(col.data());
    parallelFor(threadsFor(threads, k * s.pixels()), k,
                [&](int64_t first, int64_t last) {
                  for (int64_t r = first; r < last; ++r) {
                    int64_t ch = r / (s.kh * s.kw), i = r / s.kw % s.kh,
                            j = r % s.kw;
                    T *row = cols + r * s.pixels();
                    for (int64_t y = 0; y < s.oh; ++y) {
                      const T *src = image + ch * s.h * s.w +
                                     (y * s.sh + i * s.dh) * s.w + j * s.dw;
                      for (int64_t x = 0; x < s.ow; ++x)
                        row[y * s.ow + x] = src[x * s.sw];
                    }
                  }
                });
    gemm(filter, cols, result, s.f, k, s.pixels(), accumulate, threads);
  }
}

std::optional<KernelBuilder> convolutionKernel(Operation *op) {
  if (!llvm::isa<linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNchwFchwOp>(op) ||
      !allF32OrF64(op))
    return std::nullopt;
  std::optional<ConvShape> shape = convShapeOf(op);
  if (!shape)
    return std::nullopt;
  bool isF32 = getElementTypeOrSelf(op->getResult(0).getType()).isF32();
  bool accumulate = !isZeroInit(op->getOperands().back());
  int64_t colBytes = mlir::spmd::workingBytes(op);
  return destinationKernel(
      accumulate ? Output::CopyOfInit : Output::Uninitialized,
      [s = *shape, isF32, accumulate,
       colBytes](llvm::ArrayRef<const HostBuffer *> in, HostBuffer &out,
                 const DeviceContext &ctx) {
        auto run = [&](auto zero) {
          using T = decltype(zero);
          (s.channelsLast ? convChannelsLast<T>
                          : convChannelsFirst<T>)(s, in[0]->as<T>(),
                                                  in[1]->as<T>(), out.as<T>(),
                                                  accumulate, ctx.threads,
                                                  colBytes);
        };
        if (isF32)
          run(0.0f);
        else
          run(0.0);
      });
}

} // namespace spmd::runtime
