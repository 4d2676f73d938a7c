//===- FuseElementwisePass.cpp - spmd-fuse-elementwise --------------------===//

#include "passes/Passes.h"

#include "ir/Namespaces.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstring>
#include <vector>

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDFUSEELEMENTWISE
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;

static bool isElementwise(Operation *op) {
  auto generic = llvm::dyn_cast_if_present<linalg::GenericOp>(op);
  return generic && generic.getNumLoops() == generic.getNumParallelLoops();
}

/// A generic that only copies its one input, maybe transposing it (how
/// torch-mlir writes `w.t()`).
static bool isPermutedCopy(Operation *op) {
  auto generic = llvm::dyn_cast_if_present<linalg::GenericOp>(op);
  if (!generic || !isElementwise(op) || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || !op->hasOneUse())
    return false;
  auto yield = llvm::cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  return yield.getNumOperands() == 1 &&
         yield.getOperand(0) == generic.getBody()->getArgument(0) &&
         llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isPermutation(); });
}

/// The elements of `source` in the order a permuted copy writes them:
/// output index o reads input index toInput(o), the input map after the
/// inverse of the output map. Moved as bytes: upstream's folder
/// made a float object per element (0.2 s a million). Null for elements
/// that are not whole bytes (i1 is packed in bits).
static DenseElementsAttr permuteConstant(DenseElementsAttr source,
                                         linalg::GenericOp copy) {
  auto resultType = llvm::cast<RankedTensorType>(copy.getResultTypes().front());
  if (source.isSplat())
    return DenseElementsAttr::get(resultType,
                                  source.getSplatValue<Attribute>());
  Type element = source.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return nullptr;
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  SmallVector<AffineMap> maps = copy.getIndexingMapsArray();
  AffineMap toInput = maps[0].compose(inversePermutation(maps[1]));
  ArrayRef<int64_t> inShape = source.getType().getShape();
  ArrayRef<int64_t> outShape = resultType.getShape();
  int64_t rank = outShape.size();
  // The input stride of each output dimension: input dimension r is
  // output dimension toInput.getDimPosition(r).
  SmallVector<int64_t> inStrides(rank, 1), stride(rank, 0);
  for (int64_t r = rank - 2; r >= 0; --r)
    inStrides[r] = inStrides[r + 1] * inShape[r + 1];
  for (int64_t r = 0; r < rank; ++r)
    stride[toInput.getDimPosition(r)] = inStrides[r];
  ArrayRef<char> in = source.getRawData();
  std::vector<char> out(in.size());
  SmallVector<int64_t> index(rank, 0);
  int64_t from = 0;
  for (size_t o = 0; o < out.size(); o += bytes) {
    std::memcpy(&out[o], &in[from * bytes], bytes);
    // The next output index, and where it reads (an odometer).
    for (int64_t d = rank - 1; d >= 0; --d) {
      from += stride[d];
      if (++index[d] < outShape[d])
        break;
      from -= stride[d] * outShape[d];
      index[d] = 0;
    }
  }
  return DenseElementsAttr::getFromRawBuffer(resultType, out);
}

namespace {
/// A permuted copy of a dense constant (weights, as torch-mlir writes
/// `w.t()`) becomes the permuted constant.
struct FoldPermutedConstant : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    DenseElementsAttr source;
    if (!isPermutedCopy(op) ||
        !matchPattern(op.getDpsInputs().front(), m_Constant(&source)))
      return failure();
    DenseElementsAttr folded = permuteConstant(source, op);
    if (!folded)
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, folded);
    return success();
  }
};
} // namespace

/// Named contractions (matmul, batch_matmul, ...) reading a permuted copy
/// become generics, so the copy can be fused into them: the GEMM then reads
/// the operand where it lies, transposed, as `x @ w.t()` does.
static void generalizeContractionsOfCopies(ModuleOp module) {
  SmallVector<linalg::LinalgOp> named;
  module.walk([&](linalg::LinalgOp op) {
    if (!llvm::isa<linalg::GenericOp>(op) &&
        linalg::isaContractionOpInterface(op) &&
        llvm::any_of(op.getDpsInputs(), [](Value input) {
          return isPermutedCopy(input.getDefiningOp());
        }))
      named.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    (void)linalg::generalizeNamedOp(rewriter, op);
  }
}

namespace {
struct FuseElementwisePass
    : mlir::spmd::impl::SpmdFuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Shardings of op results describe the ops before fusion, which may
    // drop results; the programs fused here run as they are.
    module.walk([](Operation *op) {
      if (isa_and_nonnull<mlir::spmd::ShardingPerValueAttr>(
              op->getAttr(mlir::spmd::SpmdDialect::kShardingAttrName)))
        op->removeAttr(mlir::spmd::SpmdDialect::kShardingAttrName);
    });
    // First, a transposed constant (weights, as torch-mlir writes them)
    // becomes a constant once, here, instead of a copy on every call.
    RewritePatternSet folds(&getContext());
    folds.add<FoldPermutedConstant>(&getContext(), /*benefit=*/2);
    linalg::populateConstantFoldLinalgOperations(folds, [](OpOperand *operand) {
      return isPermutedCopy(operand->getOwner());
    });
    if (failed(applyPatternsGreedily(module, std::move(folds))))
      return signalPassFailure();

    generalizeContractionsOfCopies(module);
    RewritePatternSet patterns(&getContext());
    // Only a producer whose every use is the consumer: a value also read
    // elsewhere would be computed twice. Into a generic that reduces, only
    // a permuted copy: the executor's reduction and GEMM kernels recognise
    // such generics by their bodies, which a fused computation would hide.
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *operand) {
          Operation *producer = operand->get().getDefiningOp();
          return isElementwise(producer) && producer->hasOneUse() &&
                 (isElementwise(operand->getOwner()) ||
                  isPermutedCopy(producer));
        });
    // Not upstream's RemoveOutsDependency: it gives a generic whose body
    // does not read an init a fresh one, although the op keeps the init's
    // elements it does not write (an output map that is not onto, a loop
    // of no steps): those then held whatever memory held. The kernels
    // already skip the copy of an init that every step overwrites.
    std::vector<std::string> disabled;
    for (const auto &pattern : patterns.getNativePatterns())
      if (pattern->getDebugName().ends_with("::RemoveOutsDependency"))
        disabled.push_back(pattern->getDebugName().str());
    assert(disabled.size() == 1 && "upstream's fusion patterns changed");
    FrozenRewritePatternSet frozen(std::move(patterns), disabled);
    if (failed(applyPatternsGreedily(module, frozen)))
      signalPassFailure();
  }
};
} // namespace
