//===- LayoutKernels.cpp - Transposes, broadcasts and copies --------------===//
//
// A linalg op whose body only yields its input (linalg.transpose,
// linalg.broadcast, linalg.copy, and generics of that form) moves bytes.
// The input is first permuted into the output's dimension order, in tiles
// of a cache line each way over the two dimensions that change places (so
// both reads and writes are whole lines), or row by row when the innermost
// dimension stays, bands of tiles or rows split over the device's threads
// (a band reads a few lines of each input row, not one line per page);
// outputs larger than the caches are written with streaming stores, as
// memcpy writes them. Then broadcast along the loops it does not read. A
// transpose alone is permuted straight into the output. Works on same-sized
// integers, so on every element type.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/Executable.h"
#include "runtime/exec/TensorOps.h"
#include "runtime/kernels/CpuPath.h"
#include "runtime/kernels/DestinationStep.h"
#include "runtime/kernels/Parallel.h"
#include "runtime/kernels/ScalarProgram.h"
#include "runtime/kernels/Streaming.h"
#include "runtime/kernels/StructuredKernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

using namespace mlir;

namespace spmd::runtime {

namespace {
struct Movement {
  /// The input's shape and, for each output dimension, the input dimension
  /// it reads (-1: a loop the input does not read, broadcast).
  std::vector<int64_t> inShape, source, outShape;
  int64_t elementBytes;
};

std::vector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}
} // namespace

/// The element offsets of outer index `unit` (row-major over `shape`) along
/// `strides` and `outStrides`.
static std::pair<int64_t, int64_t> offsetsOf(int64_t unit,
                                             llvm::ArrayRef<int64_t> shape,
                                             llvm::ArrayRef<int64_t> strides,
                                             llvm::ArrayRef<int64_t> outStrides) {
  int64_t from = 0, to = 0;
  for (size_t d = shape.size(); d-- > 0;) {
    int64_t i = unit % shape[d];
    unit /= shape[d];
    from += i * strides[d], to += i * outStrides[d];
  }
  return {from, to};
}

#if defined(__x86_64__) && defined(__GNUC__)
/// tile[r][c] = src[c * stride + r] for 4-byte elements in 8x8 blocks of
/// AVX shuffles (24 a block, where four SSE 4x4 blocks take 32 and twice
/// the loads and stores). For the AVX2 and AVX-512 paths only.
template <typename T, int64_t Tile>
__attribute__((target("avx2"))) static inline void
transposeTileAvx(const T *src, int64_t stride, T (&tile)[Tile][Tile]) {
  static_assert(sizeof(T) == 4 && Tile % 8 == 0);
  for (int64_t c = 0; c < Tile; c += 8)
    for (int64_t r = 0; r < Tile; r += 8) {
      const float *s = reinterpret_cast<const float *>(src + c * stride + r);
      __m256 in[8], pairs[8], quads[8];
      for (int i = 0; i < 8; ++i)
        in[i] = _mm256_loadu_ps(s + i * stride);
      for (int i = 0; i < 8; i += 2) {
        pairs[i] = _mm256_unpacklo_ps(in[i], in[i + 1]);
        pairs[i + 1] = _mm256_unpackhi_ps(in[i], in[i + 1]);
      }
      for (int i = 0; i < 8; i += 4)
        for (int j = 0; j < 2; ++j) {
          quads[i + 2 * j] =
              _mm256_shuffle_ps(pairs[i + j], pairs[i + j + 2], 0x44);
          quads[i + 2 * j + 1] =
              _mm256_shuffle_ps(pairs[i + j], pairs[i + j + 2], 0xEE);
        }
      for (int i = 0; i < 4; ++i) {
        _mm256_store_ps(reinterpret_cast<float *>(&tile[r + i][c]),
                        _mm256_permute2f128_ps(quads[i], quads[i + 4], 0x20));
        _mm256_store_ps(reinterpret_cast<float *>(&tile[r + i + 4][c]),
                        _mm256_permute2f128_ps(quads[i], quads[i + 4], 0x31));
      }
    }
}
#endif

/// tile[r][c] = src[c * stride + r]: in 8x8 AVX blocks for 4-byte elements
/// where `avx`, else in 4x4 (or 2x2) blocks of SSE shuffles for 4- and
/// 8-byte elements, which would otherwise take a scalar load and store
/// each, twice the time of a memcpy of the matrix.
template <typename T, int64_t Tile>
static inline void transposeTile(const T *src, int64_t stride,
                                 T (&tile)[Tile][Tile], bool avx) {
#if defined(__x86_64__) && defined(__GNUC__)
  if constexpr (sizeof(T) == 4 && Tile % 8 == 0)
    if (avx)
      return transposeTileAvx<T, Tile>(src, stride, tile);
#endif
#if defined(__SSE2__)
  if constexpr (sizeof(T) == 4 && Tile % 4 == 0) {
    for (int64_t c = 0; c < Tile; c += 4)
      for (int64_t r = 0; r < Tile; r += 4) {
        const float *s = reinterpret_cast<const float *>(src + c * stride + r);
        __m128 a = _mm_loadu_ps(s), b = _mm_loadu_ps(s + stride),
               e = _mm_loadu_ps(s + 2 * stride),
               f = _mm_loadu_ps(s + 3 * stride);
        _MM_TRANSPOSE4_PS(a, b, e, f);
        _mm_store_ps(reinterpret_cast<float *>(&tile[r][c]), a);
        _mm_store_ps(reinterpret_cast<float *>(&tile[r + 1][c]), b);
        _mm_store_ps(reinterpret_cast<float *>(&tile[r + 2][c]), e);
        _mm_store_ps(reinterpret_cast<float *>(&tile[r + 3][c]), f);
      }
    return;
  }
  if constexpr (sizeof(T) == 8 && Tile % 2 == 0) {
    for (int64_t c = 0; c < Tile; c += 2)
      for (int64_t r = 0; r < Tile; r += 2) {
        const double *s =
            reinterpret_cast<const double *>(src + c * stride + r);
        __m128d a = _mm_loadu_pd(s), b = _mm_loadu_pd(s + stride);
        _mm_store_pd(reinterpret_cast<double *>(&tile[r][c]),
                     _mm_unpacklo_pd(a, b));
        _mm_store_pd(reinterpret_cast<double *>(&tile[r + 1][c]),
                     _mm_unpackhi_pd(a, b));
      }
    return;
  }
#endif
  for (int64_t c = 0; c < Tile; ++c)
    for (int64_t r = 0; r < Tile; ++r)
      tile[r][c] = src[c * stride + r];
}

/// out (shape `outShape`) = in read with `inStride[j]` per output dim j.
/// Rows, or row tiles, are split over `threads`.
template <typename T>
static void permute(const T *in, llvm::ArrayRef<int64_t> inStride,
                    llvm::ArrayRef<int64_t> outShape, T *out,
                    KernelThreads threads) {
  size_t rank = outShape.size();
  std::vector<int64_t> outStride = stridesOf(outShape);
  if (rank == 0) {
    *out = *in;
    return;
  }
  int64_t total = 1;
  for (int64_t s : outShape)
    total *= s;
  if (total == 0)
    return;
  threads = threads.atMost(total / (1 << 16));
  int64_t last = rank - 1;
  if (inStride[last] == 1) { // rows stay rows
    llvm::ArrayRef<int64_t> outer = outShape.drop_back();
    parallelFor(threads, total / outShape[last],
                [&](int64_t first, int64_t end) {
                  for (int64_t row = first; row < end; ++row) {
                    auto [from, to] = offsetsOf(row, outer, inStride,
                                                outStride);
                    std::memcpy(out + to, in + from,
                                outShape[last] * sizeof(T));
                  }
                });
    return;
  }
  // The output dimension read contiguously (if any) trades places with the
  // output's innermost one, tile by tile.
  int64_t swap = -1;
  for (int64_t d = 0; d < last; ++d)
    if (inStride[d] == 1 && outShape[d] > 1)
      swap = d;
  // A tile spans one cache line each way; it goes through a local buffer
  // so that reads and writes are whole lines (strided accesses that all
  // map to one cache set would evict each other).
  constexpr int64_t kTile = std::max<int64_t>(8, 64 / sizeof(T));
  std::vector<int64_t> outerShape, outerIn, outerOut;
  for (int64_t d = 0; d < last; ++d)
    if (d != swap) {
      outerShape.push_back(outShape[d]);
      outerIn.push_back(inStride[d]);
      outerOut.push_back(outStride[d]);
    }
  int64_t outerCount = total / outShape[last] / (swap >= 0 ? outShape[swap] : 1);
  int64_t rows = swap >= 0 ? outShape[swap] : 1, cols = outShape[last];
  int64_t rowIn = swap >= 0 ? inStride[swap] : 0,
          rowOut = swap >= 0 ? outStride[swap] : 0, colIn = inStride[last];
  // Bands of kBand rows: each input row read in the band is read kBand
  // elements at a time, a few lines of one page rather than one line per
  // page (a page per row of a 4096-wide f32 matrix: one TLB miss per line).
  // 64 tiles: a 4096^2 f32 transpose took 6.7-6.8 ms, against 6.8-7.6 with
  // 32 and 6.9-7.1 with 128 (AVX2 and AVX-512 paths, AMD EPYC Zen 4).
  constexpr int64_t kBand = 64 * kTile;
  int64_t bands = (rows + kBand - 1) / kBand;
  bool streaming =
      total * int64_t(sizeof(T)) >= kStreamingBytes && kTile * sizeof(T) == 64;
  bool avx = cpuPath() != CpuPath::Baseline;
  // Work units: a band of rows of one outer index.
  parallelFor(threads, outerCount * bands, [&](int64_t first, int64_t end) {
    onCpuPath([&] {
      alignas(64) T tile[kTile][kTile];
      auto copyTile = [&](int64_t from, int64_t to, int64_t r0, int64_t c0) {
        int64_t nr = std::min(kTile, rows - r0);
        int64_t nc = std::min(kTile, cols - c0);
        if (nr == kTile && nc == kTile && rowIn == 1) {
          // Whole tiles of a plain transpose: fixed trip counts.
          transposeTile<T, kTile>(in + from + c0 * colIn + r0, colIn, tile,
                                  avx);
          for (int64_t r = 0; r < kTile; ++r) {
            T *dst = out + to + (r0 + r) * rowOut + c0;
            if (streaming && reinterpret_cast<uintptr_t>(dst) % 16 == 0) {
              streamLine(dst, tile[r], avx);
              continue;
            }
            for (int64_t c = 0; c < kTile; ++c)
              dst[c] = tile[r][c];
          }
          return;
        }
        for (int64_t c = 0; c < nc; ++c) {
          const T *src = in + from + (c0 + c) * colIn + r0 * rowIn;
          for (int64_t r = 0; r < nr; ++r)
            tile[r][c] = src[r * rowIn];
        }
        for (int64_t r = 0; r < nr; ++r)
          std::memcpy(out + to + (r0 + r) * rowOut + c0, tile[r],
                      nc * sizeof(T));
      };
      for (int64_t unit = first; unit < end; ++unit) {
        auto [from, to] =
            offsetsOf(unit / bands, outerShape, outerIn, outerOut);
        int64_t band = unit % bands * kBand;
        int64_t bandEnd = std::min(rows, band + kBand);
        for (int64_t c0 = 0; c0 < cols; c0 += kTile)
          for (int64_t r0 = band; r0 < bandEnd; r0 += kTile)
            copyTile(from, to, r0, c0);
      }
      if (streaming)
        streamFence();
    });
  });
}

template <typename T>
static void run(const Movement &m, const void *input, void *output,
                KernelThreads threads) {
  const T *in = static_cast<const T *>(input);
  T *out = static_cast<T *>(output);
  size_t rank = m.outShape.size();
  std::vector<int64_t> inStrides = stridesOf(m.inShape);
  // The input in output order (broadcast dimensions of size 1).
  std::vector<int64_t> kept, keptStride;
  bool inOrder = true;
  int64_t previous = -1;
  for (size_t j = 0; j < rank; ++j) {
    int64_t s = m.source[j];
    kept.push_back(s < 0 ? 1 : m.inShape[s]);
    keptStride.push_back(s < 0 ? 0 : inStrides[s]);
    if (s >= 0 && m.inShape[s] > 1) {
      inOrder &= s > previous;
      previous = s;
    }
  }
  bool broadcast = llvm::any_of(m.source, [](int64_t s) { return s < 0; });
  if (!broadcast) {
    if (inOrder)
      std::memcpy(out, in, m.elementBytes * [&] {
        int64_t n = 1;
        for (int64_t s : m.outShape)
          n *= s;
        return n;
      }());
    else // a transpose, straight into the output
      permute(in, keptStride, kept, out, threads);
    return;
  }
  // A broadcast that also transposes: every element gathered where it
  // lies, broadcast dimensions read with stride 0, so no permuted copy of
  // the input is made (working memory the plan does not price).
  if (!inOrder)
    return permute(in, keptStride, m.outShape, out, threads);
  // Broadcast: every output row is a row of the input or one of its
  // elements repeated.
  std::vector<int64_t> from = stridesOf(kept), to = stridesOf(m.outShape);
  for (size_t j = 0; j < rank; ++j)
    if (kept[j] == 1)
      from[j] = 0;
  if (rank == 0)
    return;
  int64_t width = m.outShape[rank - 1];
  forEachOuterIndex(m.outShape, 1, [&](llvm::ArrayRef<int64_t> idx) {
    int64_t f = 0, t = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      f += idx[d] * from[d], t += idx[d] * to[d];
    if (from[rank - 1] == 0)
      std::fill(out + t, out + t + width, in[f]);
    else
      std::memcpy(out + t, in + f, width * sizeof(T));
  });
}

static std::optional<Movement> movementOf(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 || !op.hasPureTensorSemantics())
    return std::nullopt;
  Block &body = *op.getBlock();
  if (body.getOperations().size() != 1 ||
      body.getTerminator()->getOperand(0) != body.getArgument(0))
    return std::nullopt;
  auto in = llvm::dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  Type out = op->getResult(0).getType();
  if (!in || in.getElementType() != getElementTypeOrSelf(out))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) ||
      llvm::any_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
        return t != utils::IteratorType::parallel;
      }))
    return std::nullopt;
  AffineMap inMap = op.getMatchingIndexingMap(&op->getOpOperand(0));
  AffineMap outMap = op.getMatchingIndexingMap(&op->getOpOperand(1));
  if (!inMap.isProjectedPermutation() || !outMap.isPermutation())
    return std::nullopt;
  llvm::Expected<ElementType> dtype = elementTypeOf(in.getElementType());
  if (!dtype) {
    llvm::consumeError(dtype.takeError());
    return std::nullopt;
  }
  Movement m;
  m.elementBytes = elementTypeBytes(*dtype);
  m.inShape.assign(in.getShape().begin(), in.getShape().end());
  for (unsigned j = 0; j < outMap.getNumResults(); ++j) {
    unsigned loop = outMap.getDimPosition(j);
    std::optional<unsigned> read =
        inMap.getResultPosition(getAffineDimExpr(loop, op->getContext()));
    m.source.push_back(read ? int64_t(*read) : -1);
    m.outShape.push_back(ranges[loop]);
  }
  return m;
}

std::optional<KernelBuilder> layoutKernel(Operation *op) {
  auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return std::nullopt;
  std::optional<Movement> movement = movementOf(linalgOp);
  if (!movement)
    return std::nullopt;
  return destinationKernel(
      Output::Uninitialized,
      [m = *movement](llvm::ArrayRef<const HostBuffer *> in, HostBuffer &out,
                      const DeviceContext &ctx) {
        const void *from = in[0]->data();
        switch (m.elementBytes) {
        case 1:
          return run<uint8_t>(m, from, out.data(), ctx.threads);
        case 2:
          return run<uint16_t>(m, from, out.data(), ctx.threads);
        case 4:
          return run<uint32_t>(m, from, out.data(), ctx.threads);
        default:
          return run<uint64_t>(m, from, out.data(), ctx.threads);
        }
      });
}

} // namespace spmd::runtime
