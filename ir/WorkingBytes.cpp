//===- WorkingBytes.cpp - Buffers a kernel allocates besides results ------===//

#include "ir/WorkingBytes.h"
#include "ir/ContractionLayout.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

template <typename ConvOp> static bool hasUnitStrides(ConvOp conv) {
  return llvm::all_of(conv.getStrides().template getValues<int64_t>(),
                      [](int64_t s) { return s == 1; });
}

/// A 2-D convolution's im2col matrix: one image's output pixels by its
/// patch (kernel height x width x input channels), unless a 1x1 kernel
/// with unit strides reads the image as it is.
template <typename ConvOp>
static int64_t im2colBytes(ConvOp conv, ArrayRef<int64_t> input,
                           ArrayRef<int64_t> filter, ArrayRef<int64_t> output,
                           bool channelsLast) {
  bool unitStrides = hasUnitStrides(conv);
  // HWCF or FCHW filters; NHWC or NCHW images.
  int64_t kh = channelsLast ? filter[0] : filter[2];
  int64_t kw = channelsLast ? filter[1] : filter[3];
  int64_t c = channelsLast ? filter[2] : filter[1];
  int64_t oh = channelsLast ? output[1] : output[2];
  int64_t ow = channelsLast ? output[2] : output[3];
  bool direct = kh == 1 && kw == 1 && unitStrides;
  if (!channelsLast)
    direct = direct && oh == input[2] && ow == input[3];
  if (direct)
    return 0;
  int64_t element = getElementTypeOrSelf(conv->getResult(0).getType())
                        .getIntOrFloatBitWidth() /
                    8;
  return oh * ow * kh * kw * c * element;
}

/// What the oneDNN kernel of f32 NHWC convolutions may use besides the
/// im2col matrix (which it does not make) or the pixels it copies: its
/// scratchpad, and a filter reordered on each call. It declines what does
/// not fit (the im2col and window kernels then run).
constexpr int64_t kLibraryBytes = 64 << 10;

/// The pixels the oneDNN kernel copies out of the images of a 1x1 NHWC
/// convolution with strides (every image's, where im2col makes one's).
static int64_t stridedPixelBytes(linalg::Conv2DNhwcHwcfOp conv,
                                 ArrayRef<int64_t> filter,
                                 ArrayRef<int64_t> output) {
  if (filter[0] != 1 || filter[1] != 1 || hasUnitStrides(conv))
    return 0;
  return output[0] * output[1] * output[2] * filter[2] * 4;
}

static bool isF32(Operation *op) {
  return getElementTypeOrSelf(op->getResult(0).getType()).isF32();
}

/// What the oneDNN matmul of an f32 contraction may use as scratchpad (65
/// KiB with an init to add, at 256x1024x1024); the kernel declines what
/// does not fit. Contractions of fewer multiply-adds have none: there
/// oneDNN's per-call cost (a stream, memory objects: about 2 us) is not
/// repaid (measured at 64x128x128), and our GEMM runs.
constexpr int64_t kMatmulLibraryBytes = 128 << 10;
constexpr int64_t kMatmulMinMacs = 1 << 20;

/// The one input `op` copies, maybe transposing it (a linalg.copy or
/// linalg.transpose, or a generic that is one), or null.
static Value copiedValue(Operation *op) {
  auto linalgOp = dyn_cast_if_present<linalg::LinalgOp>(op);
  if (!linalgOp)
    return {};
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (isa<linalg::TransposeOp>(op) || linalg::isaCopyOpInterface(linalgOp) ||
      (generic && linalg::isaTransposeOpInterface(generic)))
    return linalgOp.getDpsInputs()[0];
  return {};
}

/// Whether the B of contraction `op` is made by an op of no operands and no
/// memory effects (a constant, a load of a constant global), maybe through
/// a copy that transposes it (torch-mlir's `w.t()`, which the executor
/// folds or fuses into the contraction): the oneDNN matmul takes only such
/// weights. (Other such ops, as tensor.empty, are priced the same.)
static bool hasStoredWeights(linalg::LinalgOp op) {
  Value weights = op->getOperand(1);
  if (Value copied = copiedValue(weights.getDefiningOp()))
    weights = copied;
  Operation *producer = weights.getDefiningOp();
  return producer && producer->getNumOperands() == 0 &&
         isMemoryEffectFree(producer);
}

/// The dense copies the GEMM makes of the operands of an f32 or f64
/// contraction that are no matrices where they lie (ir/ContractionLayout.h).
static int64_t denseCopyBytes(linalg::LinalgOp op,
                              ArrayRef<ArrayRef<int64_t>> operandShapes) {
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!element.isF32() && !element.isF64())
    return 0;
  std::optional<Contraction> c = contractionLayout(op, operandShapes);
  if (!c)
    return 0;
  int64_t bytes = 0;
  auto add = [&](const Packing &view, int64_t rows, int64_t cols) {
    if (!view.matrix(rows, cols))
      bytes += view.elements() * (element.getIntOrFloatBitWidth() / 8);
  };
  add(c->a, c->m, c->k);
  add(c->b, c->k, c->n);
  add(c->c, c->m, c->n);
  return bytes;
}

int64_t mlir::spmd::workingBytes(Operation *op,
                                 ArrayRef<ArrayRef<int64_t>> operandShapes,
                                 ArrayRef<ArrayRef<int64_t>> resultShapes) {
  if (operandShapes.size() < 2 || resultShapes.empty())
    return 0;
  if (auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op)) {
    int64_t im2col = im2colBytes(conv, operandShapes[0], operandShapes[1],
                                 resultShapes[0], true);
    if (!isF32(op))
      return im2col;
    return std::max(im2col, stridedPixelBytes(conv, operandShapes[1],
                                              resultShapes[0])) +
           kLibraryBytes;
  }
  if (isa<linalg::DepthwiseConv2DNhwcHwcOp>(op) && isF32(op))
    return kLibraryBytes;
  if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
    return im2colBytes(conv, operandShapes[0], operandShapes[1],
                       resultShapes[0], false);
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalg::isaContractionOpInterface(linalgOp) ||
      int64_t(operandShapes.size()) != op->getNumOperands())
    return 0;
  return denseCopyBytes(linalgOp, operandShapes) +
         matmulLibraryBytes(linalgOp, operandShapes);
}

int64_t
mlir::spmd::matmulLibraryBytes(Operation *op,
                               ArrayRef<ArrayRef<int64_t>> operandShapes) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (linalgOp && isF32(op) && linalg::isaContractionOpInterface(linalgOp) &&
      hasStoredWeights(linalgOp) &&
      int64_t(operandShapes.size()) == op->getNumOperands())
    if (std::optional<Contraction> c =
            contractionLayout(linalgOp, operandShapes);
        c && c->batch * c->m * c->n * c->k >= kMatmulMinMacs)
      return kMatmulLibraryBytes;
  return 0;
}

/// The shapes of `op`'s operands and results, when all are ranked.
static bool shapesOf(Operation *op, SmallVector<ArrayRef<int64_t>> &operands,
                     SmallVector<ArrayRef<int64_t>> &results) {
  for (Type type : op->getOperandTypes())
    if (auto shaped = dyn_cast<ShapedType>(type); shaped && shaped.hasRank())
      operands.push_back(shaped.getShape());
    else
      return false;
  for (Type type : op->getResultTypes())
    if (auto shaped = dyn_cast<ShapedType>(type); shaped && shaped.hasRank())
      results.push_back(shaped.getShape());
    else
      return false;
  return true;
}

int64_t mlir::spmd::workingBytes(Operation *op) {
  SmallVector<ArrayRef<int64_t>> operands, results;
  return shapesOf(op, operands, results) ? workingBytes(op, operands, results)
                                         : 0;
}

int64_t mlir::spmd::matmulLibraryBytes(Operation *op) {
  SmallVector<ArrayRef<int64_t>> operands, results;
  return shapesOf(op, operands, results) ? matmulLibraryBytes(op, operands) : 0;
}
