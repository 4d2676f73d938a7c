//===- ReductionKernels.cpp - Reductions over contiguous loops ------------===//
//
// A linalg op that folds its input into its output with one combiner
// (linalg.reduce, and generics of that form: sums, maxima, minima) over
// reduction loops that are adjacent in the input's layout. The input is
// then [outer, reduced, inner]: with inner > 1 each reduced row is folded
// into a vector of inner accumulators in order (as the op says); with
// inner == 1 each contiguous run is reduced vectorised: sums in 32 partial
// sums (a plain loop, compiled for the CPU path), maxima and minima by
// Eigen (sums reassociate, within the documented tolerance; maxima and
// minima are exact in any order).
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/CpuPath.h"
#include "runtime/exec/Executable.h"
#include "runtime/kernels/Parallel.h"
#include "runtime/kernels/ScalarProgram.h"
#include "runtime/kernels/BodyPatterns.h"
#include "runtime/kernels/DestinationStep.h"
#include "runtime/kernels/StructuredKernels.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <Eigen/Core>

#include <cmath>
#include <cstring>

using namespace mlir;

namespace spmd::runtime {

namespace {
struct Reduction {
  ReductionKind combiner;
  ElementType type;
  int64_t outer = 1, reduced = 1, inner = 1;
};

/// `extremum`, the max or min of `run` as vector max and min instructions
/// give it: either zero where +0.0 and -0.0 tie. arith.maximumf orders
/// -0.0 below +0.0: a zero maximum is +0.0 if the run holds one, a zero
/// minimum -0.0 (`negative`).
template <typename T, typename Run>
T signedZero(T extremum, const Run &run, bool negative) {
  if (extremum != 0 || std::signbit(extremum) == negative)
    return extremum;
  for (T v : run)
    if (v == 0 && std::signbit(v) == negative)
      return v;
  return extremum;
}

/// The fold of a contiguous run of `n` >= 1 elements.
template <ReductionKind c, typename T> T foldRun(const T *p, int64_t n) {
  Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> run(p, n);
  if constexpr (std::is_floating_point_v<T>) {
    switch (c) { // a constant: the branch folds away
    case ReductionKind::Sum: {
      // Independent partial sums: as many as two AVX-512 vectors of floats
      // hold, so the loop vectorises on every path.
      constexpr int64_t kParts = 32;
      T parts[kParts] = {};
      int64_t i = 0;
      for (; i + kParts <= n; i += kParts)
        for (int64_t j = 0; j < kParts; ++j)
          parts[j] += p[i + j];
      T sum = 0;
      for (; i < n; ++i)
        sum += p[i];
      for (int64_t j = 0; j < kParts; ++j)
        sum += parts[j];
      return sum;
    }
    case ReductionKind::Max:
      return signedZero(run.template maxCoeff<Eigen::PropagateNaN>(), run,
                        /*negative=*/false);
    case ReductionKind::Min:
      return signedZero(run.template minCoeff<Eigen::PropagateNaN>(), run,
                        /*negative=*/true);
    case ReductionKind::MaxNum:
      return run.template maxCoeff<Eigen::PropagateNumbers>();
    case ReductionKind::MinNum:
      return run.template minCoeff<Eigen::PropagateNumbers>();
    case ReductionKind::Prod:
      break; // in order, below
    }
  }
  T v = p[0];
  for (int64_t i = 1; i < n; ++i)
    v = combine<c>(v, p[i]);
  return v;
}
} // namespace

/// Outputs [first, last) of the flattened [outer, inner] output.
template <ReductionKind c, typename T>
static void reduceRange(const Reduction &r, const T *in, T *out, int64_t first,
                        int64_t last) {
  if (r.inner == 1) {
    if (r.reduced > 0)
      for (int64_t o = first; o < last; ++o)
        out[o] = combine<c>(out[o], foldRun<c>(in + o * r.reduced, r.reduced));
    return;
  }
  for (int64_t o = first / r.inner; o * r.inner < last; ++o) {
    int64_t i0 = std::max(first - o * r.inner, int64_t(0)),
            i1 = std::min(last - o * r.inner, r.inner);
    T *acc = out + o * r.inner;
    for (int64_t k = 0; k < r.reduced; ++k) {
      const T *row = in + (o * r.reduced + k) * r.inner;
      for (int64_t i = i0; i < i1; ++i)
        acc[i] = combine<c>(acc[i], row[i]);
    }
  }
}

template <typename T>
static void reduceParts(const Reduction &r, const T *x, T *y, int64_t first,
                        int64_t last) {
  switch (r.combiner) {
  case ReductionKind::Sum:
    return reduceRange<ReductionKind::Sum>(r, x, y, first, last);
  case ReductionKind::Max:
    return reduceRange<ReductionKind::Max>(r, x, y, first, last);
  case ReductionKind::Min:
    return reduceRange<ReductionKind::Min>(r, x, y, first, last);
  case ReductionKind::MaxNum:
    return reduceRange<ReductionKind::MaxNum>(r, x, y, first, last);
  case ReductionKind::MinNum:
    return reduceRange<ReductionKind::MinNum>(r, x, y, first, last);
  case ReductionKind::Prod:
    return reduceRange<ReductionKind::Prod>(r, x, y, first, last);
  }
}

template <typename T>
static void reduce(const Reduction &r, const HostBuffer &in, HostBuffer &out,
                   KernelThreads threads) {
  int64_t outputs = r.outer * r.inner;
  KernelThreads parts = threads.atMost(
      std::min(outputs * r.reduced / (1 << 16), outputs));
  parallelFor(parts, outputs, [&](int64_t first, int64_t last) {
    onCpuPath([&] { reduceParts<T>(r, in.as<T>(), out.as<T>(), first, last); });
  });
}

static std::optional<Reduction> reductionOf(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 || !op.hasPureTensorSemantics())
    return std::nullopt;
  Block &body = *op.getBlock();
  std::optional<ReductionKind> combiner =
      foldCombiner(body, body.getArgument(0), body.getArgument(1));
  if (!combiner)
    return std::nullopt;
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  if (getElementTypeOrSelf(op->getOperand(0).getType()) != element ||
      !(element.isF32() || element.isF64() || element.isInteger(32) ||
        element.isInteger(64)))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  // Input read in loop order; output: the parallel loops in order, or
  // constant 0 for kept unit dimensions.
  AffineMap inMap = op.getMatchingIndexingMap(&op->getOpOperand(0));
  AffineMap outMap = op.getMatchingIndexingMap(&op->getOpOperand(1));
  if (!inMap.isIdentity())
    return std::nullopt;
  auto iterators = op.getIteratorTypesArray();
  int64_t previous = -1;
  ArrayRef<int64_t> outShape =
      llvm::cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  for (auto [j, expr] : llvm::enumerate(outMap.getResults())) {
    if (auto dim = llvm::dyn_cast<AffineDimExpr>(expr)) {
      if (int64_t(dim.getPosition()) <= previous ||
          iterators[dim.getPosition()] != utils::IteratorType::parallel)
        return std::nullopt;
      previous = dim.getPosition();
    } else if (auto constant = llvm::dyn_cast<AffineConstantExpr>(expr)) {
      if (constant.getValue() != 0 || outShape[j] != 1)
        return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  // Loops: parallel ones, then reduction ones, then parallel ones (unit
  // loops may sit anywhere).
  Reduction r;
  r.combiner = *combiner;
  r.type = element.isF32()         ? ElementType::F32
           : element.isF64()       ? ElementType::F64
           : element.isInteger(32) ? ElementType::I32
                                   : ElementType::I64;
  int phase = 0; // 0 outer, 1 reduced, 2 inner
  for (auto [loop, range] : llvm::enumerate(ranges)) {
    bool reduced = iterators[loop] == utils::IteratorType::reduction;
    if (reduced == outMap.isFunctionOfDim(loop))
      return std::nullopt;
    if (range == 1)
      continue;
    if (reduced && phase == 2)
      return std::nullopt;
    phase = reduced ? 1 : (phase == 0 ? 0 : 2);
    (phase == 0 ? r.outer : phase == 1 ? r.reduced : r.inner) *= range;
  }
  return r;
}

std::optional<KernelBuilder> reductionKernel(Operation *op) {
  auto linalgOp = llvm::dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return std::nullopt;
  std::optional<Reduction> reduction = reductionOf(linalgOp);
  if (!reduction)
    return std::nullopt;
  return destinationKernel(
      Output::CopyOfInit,
      [r = *reduction](llvm::ArrayRef<const HostBuffer *> in, HostBuffer &out,
                       const DeviceContext &ctx) {
        switch (r.type) {
        case ElementType::F32:
          return reduce<float>(r, *in[0], out, ctx.threads);
        case ElementType::F64:
          return reduce<double>(r, *in[0], out, ctx.threads);
        case ElementType::I32:
          return reduce<int32_t>(r, *in[0], out, ctx.threads);
        default:
          return reduce<int64_t>(r, *in[0], out, ctx.threads);
        }
      });
}

} // namespace spmd::runtime
