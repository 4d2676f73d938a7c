//===- FuseConvolutionsPass.cpp - spmd-fuse-convolutions ------------------===//
//
// Importers write a convolution layer as three ops, each a pass over an
// image: a tensor.pad adding the border, the convolution, and (after
// --spmd-fuse-elementwise) one elementwise generic for the bias, batch
// norm and activation. oneDNN's convolution pads as it reads and applies
// elementwise ops to its output while it is in registers or cache; this
// pass puts the three ops in one spmd.fusion so that the executor may run
// them so.
//
//===----------------------------------------------------------------------===//

#include "ir/SpmdOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDFUSECONVOLUTIONS
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;

/// The only reader of `v`, in the block of `v`'s op.
static Operation *onlyReader(Value v) {
  if (!v.hasOneUse())
    return nullptr;
  Operation *reader = *v.getUsers().begin();
  return reader->getBlock() == v.getParentBlock() ? reader : nullptr;
}

static bool isF32(Value v) { return getElementTypeOrSelf(v).isF32(); }

/// The pad making `conv`'s image, when it adds +0.0 around rows and columns
/// (NHWC dimensions 1 and 2) only and `conv` is its only reader.
static tensor::PadOp borderPad(Operation *conv) {
  auto pad = conv->getOperand(0).getDefiningOp<tensor::PadOp>();
  if (!pad || onlyReader(pad.getResult()) != conv)
    return nullptr;
  Value value = pad.getConstantPaddingValue();
  if (!value || !matchPattern(value, m_PosZeroFloat()))
    return nullptr;
  for (auto widths : {pad.getStaticLow(), pad.getStaticHigh()})
    if (widths.size() != 4 || widths[0] != 0 || widths[3] != 0 ||
        llvm::any_of(widths, ShapedType::isDynamic))
      return nullptr;
  return pad;
}

/// The fill of zeros `conv` starts from, when `conv` is its only reader.
static linalg::FillOp zeroFill(Operation *conv) {
  auto fill = conv->getOperand(2).getDefiningOp<linalg::FillOp>();
  if (!fill || onlyReader(fill.result()) != conv ||
      !matchPattern(fill.value(), m_PosZeroFloat()))
    return nullptr;
  return fill;
}

/// The elementwise generic that is the only reader of `conv`'s result.
static linalg::GenericOp elementwiseReader(Operation *conv) {
  auto generic =
      llvm::dyn_cast_or_null<linalg::GenericOp>(onlyReader(conv->getResult(0)));
  if (!generic || generic.getNumResults() != 1 ||
      !isF32(generic->getResult(0)) ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return nullptr;
  return generic;
}

/// Moves `ops` (in order, each in the block of the last) into a fusion at
/// the place of the last, which yields the last's results.
static void fuse(ArrayRef<Operation *> ops) {
  Operation *last = ops.back();
  OpBuilder builder(last);
  auto fusion = mlir::spmd::FusionOp::create(builder, last->getLoc(),
                                             last->getResultTypes());
  last->replaceAllUsesWith(fusion.getResults());
  Block &body = fusion.getBody().emplaceBlock();
  for (Operation *op : ops)
    op->moveBefore(&body, body.end());
  builder.setInsertionPointToEnd(&body);
  mlir::spmd::YieldOp::create(builder, last->getLoc(), last->getResults());
}

namespace {
struct FuseConvolutionsPass
    : mlir::spmd::impl::SpmdFuseConvolutionsBase<FuseConvolutionsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> convs;
    getOperation().walk([&](Operation *op) {
      if (llvm::isa<linalg::Conv2DNhwcHwcfOp, linalg::DepthwiseConv2DNhwcHwcOp>(
              op) &&
          llvm::all_of(op->getOperands(), isF32))
        convs.push_back(op);
    });
    for (Operation *conv : convs) {
      tensor::PadOp pad = borderPad(conv);
      linalg::GenericOp reader = elementwiseReader(conv);
      // A fill alone is no reason: the kernel skips a zero fill anyway.
      if (!pad && !reader)
        continue;
      SmallVector<Operation *, 4> group;
      if (linalg::FillOp fill = zeroFill(conv))
        group.push_back(fill);
      if (pad)
        group.push_back(pad);
      group.push_back(conv);
      if (reader)
        group.push_back(reader);
      fuse(group);
    }
  }
};
} // namespace
