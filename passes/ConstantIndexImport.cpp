//===- ConstantIndexImport.cpp - Constant index operands made static ------===//
//
// Importers write static paddings, offsets, strides and shapes as SSA values
// of constants, e.g. IREE's TensorFlow importer:
//
//   %c0 = arith.constant 0 : index
//   %c1 = arith.constant 1 : index
//   %p = tensor.pad %x low[%c0, %c0] high[%c0, %c1] { ... }
//                                     becomes   tensor.pad %x low[0, 0] high[0,
//                                     1]
//
// Every later reader (sharding rules, partitioner, auto-sharding, kernels)
// reads the static lists; a value there means "known only at run time". So
// the constants are folded into the static lists once, here, where every
// program enters.
//
//===----------------------------------------------------------------------===//

#include "ir/SpmdDialect.h"
#include "passes/Import.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace {
/// How a list of mixed static and dynamic indices may be folded.
enum class IndexKind { OffsetOrSize, Stride };
} // namespace

/// Folds the constants of `mixed` into static entries: `setStatic` gets the
/// new static list and `dynamic` the values left. Returns whether any
/// constant was folded. Values that would be invalid as static entries
/// (negative offsets, zero strides) are left as they are.
static bool
foldIndexList(SmallVector<OpFoldResult> mixed, IndexKind kind,
              MutableOperandRange dynamic,
              llvm::function_ref<void(ArrayRef<int64_t>)> setStatic) {
  // Some ops' getMixed* fold constants already; what counts is whether
  // fewer values remain.
  (void)(kind == IndexKind::Stride ? foldDynamicStrideList(mixed)
                                   : foldDynamicOffsetSizeList(mixed));
  auto [statics, values] = decomposeMixedValues(mixed);
  if (values.size() == dynamic.size())
    return false;
  dynamic.assign(values);
  setStatic(statics);
  return true;
}

/// Whether a static list names as many run-time entries as it has values.
/// The verifiers let a written -9223372036854775808 (the marker of a
/// run-time entry) through, and reading such a list runs past its values.
static bool isWellFormed(ArrayRef<int64_t> statics, ValueRange dynamic) {
  return llvm::count_if(statics, ShapedType::isDynamic) ==
         static_cast<int64_t>(dynamic.size());
}

/// tensor.extract_slice and tensor.insert_slice.
template <typename SliceOp> static bool foldSlice(SliceOp op) {
  bool offsets = foldIndexList(
      op.getMixedOffsets(), IndexKind::OffsetOrSize, op.getOffsetsMutable(),
      [&](ArrayRef<int64_t> s) { op.setStaticOffsets(s); });
  bool sizes = foldIndexList(
      op.getMixedSizes(), IndexKind::OffsetOrSize, op.getSizesMutable(),
      [&](ArrayRef<int64_t> s) { op.setStaticSizes(s); });
  bool strides = foldIndexList(
      op.getMixedStrides(), IndexKind::Stride, op.getStridesMutable(),
      [&](ArrayRef<int64_t> s) { op.setStaticStrides(s); });
  return offsets || sizes || strides;
}

static bool foldPad(tensor::PadOp op) {
  bool low = foldIndexList(op.getMixedLowPad(), IndexKind::OffsetOrSize,
                           op.getLowMutable(),
                           [&](ArrayRef<int64_t> s) { op.setStaticLow(s); });
  bool high = foldIndexList(op.getMixedHighPad(), IndexKind::OffsetOrSize,
                            op.getHighMutable(),
                            [&](ArrayRef<int64_t> s) { op.setStaticHigh(s); });
  return low || high;
}

static bool foldExpandShape(tensor::ExpandShapeOp op) {
  return foldIndexList(op.getMixedOutputShape(), IndexKind::OffsetOrSize,
                       op.getOutputShapeMutable(), [&](ArrayRef<int64_t> s) {
                         op.setStaticOutputShape(s);
                       });
}

/// An error at `op` where one of its index lists is malformed.
static LogicalResult checkIndexLists(Operation *op) {
  auto check = [&](ArrayRef<int64_t> statics, ValueRange dynamic,
                   StringRef name) -> LogicalResult {
    if (isWellFormed(statics, dynamic))
      return success();
    return op->emitError() << "its " << name << " list has " << dynamic.size()
                           << " values for "
                           << llvm::count_if(statics, ShapedType::isDynamic)
                           << " run-time entries";
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<tensor::ExtractSliceOp, tensor::InsertSliceOp>([&](auto slice) {
        return success(
            succeeded(check(slice.getStaticOffsets(), slice.getOffsets(),
                            "offset")) &&
            succeeded(check(slice.getStaticSizes(), slice.getSizes(), "size")) &&
            succeeded(check(slice.getStaticStrides(), slice.getStrides(),
                            "stride")));
      })
      .Case([&](tensor::PadOp pad) {
        return success(
            succeeded(check(pad.getStaticLow(), pad.getLow(), "low padding")) &&
            succeeded(
                check(pad.getStaticHigh(), pad.getHigh(), "high padding")));
      })
      .Case([&](tensor::ExpandShapeOp expand) {
        return check(expand.getStaticOutputShape(), expand.getOutputShape(),
                     "output shape");
      })
      .Default(success());
}

LogicalResult mlir::spmd::importConstantIndices(ModuleOp module) {
  // Nothing to fold without the tensor dialect (its ops are the ones with
  // static index lists).
  if (!module.getContext()->getLoadedDialect<tensor::TensorDialect>())
    return success();
  WalkResult result = module.walk([](Operation *op) {
    if (failed(checkIndexLists(op)))
      return WalkResult::interrupt();
    bool folded = llvm::TypeSwitch<Operation *, bool>(op)
                      .Case<tensor::ExtractSliceOp, tensor::InsertSliceOp>(
                          [](auto slice) { return foldSlice(slice); })
                      .Case([](tensor::PadOp pad) { return foldPad(pad); })
                      .Case([](tensor::ExpandShapeOp expand) {
                        return foldExpandShape(expand);
                      })
                      .Default(false);
    // The constants now meet the types the op declares: a program whose
    // constants contradict them (a pad of 1 into a type 2 larger) is
    // reported here, at the op.
    if (folded && failed(verify(op)))
      return WalkResult::interrupt();
    // A plan's factor split read the op's former rule (its dynamic
    // entries were factors of their own): the partitioner chooses anew.
    if (folded)
      op->removeAttr(SpmdDialect::kFactorSplitAttrName);
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
