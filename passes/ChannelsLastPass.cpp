//===- ChannelsLastPass.cpp - spmd-channels-last --------------------------===//
//
// PyTorch's importers write images NCHW (`linalg.conv_2d_nchw_fchw`), where
// the executor's fast convolution, oneDNN's direct one, reads NHWC images
// and writes NHWC results; an NCHW convolution runs as im2col and a GEMM
// instead. This pass rewrites each f32 NCHW convolution as its NHWC twin,
// together with the ops around it that have an NHWC twin too (pads,
// poolings, elementwise generics): the region of such ops connected to a
// convolution computes in NHWC, and only the values entering or leaving
// the region are transposed, once each. Constant filters (dense,
// resource blobs, immutable globals) are transposed here, once.
//
//===----------------------------------------------------------------------===//

#include "ir/SpmdDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDCHANNELSLAST
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;

/// Dimension k of an NHWC tensor is dimension kToNhwc[k] of its NCHW form
/// (linalg.transpose's permutation); kToNchw is the way back.
static constexpr int64_t kToNhwc[] = {0, 2, 3, 1};
static constexpr int64_t kToNchw[] = {0, 3, 1, 2};
/// An FCHW filter as HWCF.
static constexpr int64_t kToHwcf[] = {2, 3, 1, 0};

static RankedTensorType permutedType(Type type, ArrayRef<int64_t> permutation) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(applyPermutation(tensor.getShape(), permutation),
                               tensor.getElementType());
}

/// `values`, a filter of shape `fchw`, in HWCF order.
static std::vector<float> toHwcf(ArrayRef<float> values,
                                 ArrayRef<int64_t> fchw) {
  std::vector<float> hwcf(values.size());
  int64_t f = fchw[0], c = fchw[1], h = fchw[2], w = fchw[3];
  for (int64_t i = 0; i < f; ++i)
    for (int64_t j = 0; j < c; ++j)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          hwcf[((y * w + x) * c + j) * f + i] =
              values[((i * c + j) * h + y) * w + x];
  return hwcf;
}

/// An FCHW filter's f32 elements as HWCF, held the way `elements` holds them
/// (dense, or a resource blob); null where they are not known here (an
/// elided resource, a blob of another size, another element type).
static ElementsAttr hwcfElements(ElementsAttr elements) {
  if (!elements.getElementType().isF32())
    return {};
  auto type = permutedType(elements.getType(), kToHwcf);
  ArrayRef<int64_t> fchw = elements.getShapedType().getShape();
  if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(elements)) {
    if (dense.isSplat())
      return dense.resizeSplat(type);
    auto values = llvm::to_vector(dense.getValues<float>());
    return DenseElementsAttr::get(type, ArrayRef(toHwcf(values, fchw)));
  }
  auto resource = dyn_cast<DenseF32ResourceElementsAttr>(elements);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  // The executor reports a blob of the wrong size; its twin must too.
  if (!blob || blob->getData().size() !=
                   size_t(elements.getNumElements()) * sizeof(float))
    return {};
  return cast<ElementsAttr>(DenseF32ResourceElementsAttr::get(
      type, (resource.getRawHandle().getKey() + "_hwcf").str(),
      HeapAsmResourceBlob::allocateAndCopyInferAlign(
          ArrayRef(toHwcf(*resource.tryGetAsArrayRef(), fchw)))));
}

namespace {
/// Filters whose elements the module holds (constants, immutable globals)
/// as HWCF, each rearranged once for the whole module: a blob or global
/// read in several blocks or functions has one twin.
class StoredFilters {
public:
  /// `attr`, the value of a filter of type `filterType`, as HWCF; null
  /// where it is not known here.
  ElementsAttr elements(Attribute attr, Type filterType) {
    auto known = dyn_cast<ElementsAttr>(attr);
    if (!known || known.getType() != filterType)
      return {};
    auto [it, inserted] = twins.try_emplace(attr);
    if (inserted)
      it->second = hwcfElements(known);
    return it->second;
  }

  /// The immutable global holding `global`'s value (the value of a filter
  /// of type `filterType`) as HWCF, next to it and as visible; null where
  /// not known.
  ml_program::GlobalOp global(ml_program::GlobalOp global, Type filterType) {
    auto [it, inserted] = globals.try_emplace(global);
    if (!inserted)
      return it->second;
    // Immutable: global_load_const reads no other.
    ElementsAttr value =
        global.getValue() ? elements(*global.getValue(), filterType) : nullptr;
    if (!value)
      return it->second = nullptr;
    OpBuilder detached(global.getContext());
    auto twin = ml_program::GlobalOp::create(
        detached, global.getLoc(), (global.getSymName() + "_hwcf").str(),
        value.getType(), /*is_mutable=*/false, value,
        global.getSymVisibilityAttr());
    // Renamed if that name is taken.
    SymbolTable(global->getParentOp())
        .insert(twin, std::next(global->getIterator()));
    return it->second = twin;
  }

private:
  llvm::DenseMap<Attribute, ElementsAttr> twins;
  llvm::DenseMap<Operation *, ml_program::GlobalOp> globals;
};
} // namespace

/// A static rank-4 tensor.
static bool isImage(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 4 && tensor.hasStaticShape();
}

/// An elementwise generic over an image: four parallel loops, one result
/// written through the identity map, a body that reads no loop index.
static bool isImageGeneric(linalg::GenericOp generic) {
  if (generic.getNumResults() != 1 || generic.getNumLoops() != 4 ||
      generic.getNumParallelLoops() != 4 ||
      !isImage(generic->getResult(0).getType()) ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity())
    return false;
  return !generic.getBody()
              ->walk([](linalg::IndexOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
}

/// A pad of an image by static widths and a value defined outside it.
static bool isImagePad(tensor::PadOp pad) {
  if (!isImage(pad.getType()) || !isImage(pad.getSourceType()) ||
      !pad.getLow().empty() || !pad.getHigh().empty())
    return false;
  Value value = pad.getConstantPaddingValue();
  return value && !pad.getRegion().isAncestor(value.getParentRegion());
}

/// Whether `op` has an NHWC twin this pass writes.
static bool hasNhwcTwin(Operation *op) {
  if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
    return llvm::all_of(conv->getOperandTypes(), isImage) &&
           getElementTypeOrSelf(conv->getResult(0)).isF32();
  if (isa<linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp>(op))
    return isImage(op->getOperand(0).getType()) &&
           isImage(op->getResult(0).getType());
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    return isImagePad(pad);
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    return isImageGeneric(generic);
  return false;
}

/// The operands of `op` (one with an NHWC twin) that are images in its
/// layout: what the region passes between its ops.
static SmallVector<OpOperand *> imageOperands(Operation *op) {
  SmallVector<OpOperand *> operands;
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    for (OpOperand &operand : generic->getOpOperands())
      if (isImage(operand.get().getType()))
        operands.push_back(&operand);
    return operands;
  }
  // A convolution's and a pooling's image and init; a pad's source.
  for (OpOperand &operand : op->getOpOperands())
    if (operand.getOperandNumber() != 1 || isa<tensor::PadOp>(op))
      if (isImage(operand.get().getType()))
        operands.push_back(&operand);
  return operands;
}

/// The ops that compute in NHWC: every f32 NCHW convolution of `block`,
/// and the ops with an NHWC twin connected to one through images.
static llvm::SetVector<Operation *> regionOf(Block &block) {
  llvm::SetVector<Operation *> region;
  SmallVector<Operation *> work;
  for (Operation &op : block)
    if (isa<linalg::Conv2DNchwFchwOp>(op) && hasNhwcTwin(&op)) {
      region.insert(&op);
      work.push_back(&op);
    }
  auto visit = [&](Operation *op) {
    if (op && op->getBlock() == &block && hasNhwcTwin(op) && region.insert(op))
      work.push_back(op);
  };
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (OpOperand *operand : imageOperands(op))
      visit(operand->get().getDefiningOp());
    for (Operation *user : op->getResult(0).getUsers())
      if (hasNhwcTwin(user) &&
          llvm::any_of(imageOperands(user), [&](OpOperand *operand) {
            return operand->get() == op->getResult(0);
          }))
        visit(user);
  }
  return region;
}

namespace {
/// Rewrites the ops of one region in program order; `nhwc` maps each
/// image of the region (and each image transposed on entry) to its NHWC
/// value.
class RegionRewriter {
public:
  RegionRewriter(MLIRContext *context,
                 const llvm::SetVector<Operation *> &region,
                 StoredFilters &stored)
      : builder(context), region(region), stored(stored) {}

  void rewrite() {
    SmallVector<Operation *> ordered(region.begin(), region.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    for (Operation *op : ordered) {
      builder.setInsertionPoint(op);
      Value twin = rewriteOp(op);
      nhwc[op->getResult(0)] = twin;
      leaveRegion(op->getResult(0), twin);
    }
    // What only the NCHW ops read (their inits, filters, empty tensors)
    // goes with them.
    llvm::SetVector<Operation *> producers;
    for (Operation *op : llvm::reverse(ordered)) {
      assert(op->use_empty() && "region images are read in NHWC");
      for (Value operand : op->getOperands())
        if (Operation *producer = operand.getDefiningOp();
            producer && !region.contains(producer))
          producers.insert(producer);
      op->erase();
    }
    // Each is visited once (a SetVector inserts it once), so none is read
    // after it is erased; none with regions, which may hold blocks the pass
    // has yet to rewrite.
    for (size_t i = 0; i < producers.size(); ++i) {
      Operation *producer = producers[i];
      if (producer->getNumRegions() != 0 || !isOpTriviallyDead(producer))
        continue;
      for (Value operand : producer->getOperands())
        if (Operation *next = operand.getDefiningOp())
          producers.insert(next);
      producer->erase();
    }
  }

private:
  Value rewriteOp(Operation *op) {
    Location loc = op->getLoc();
    Type result = permutedType(op->getResult(0).getType(), kToNhwc);
    if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
      return linalg::Conv2DNhwcHwcfOp::create(
                 builder, loc, TypeRange{result},
                 ValueRange{image(conv.getInputs()[0]),
                            filter(conv.getInputs()[1])},
                 ValueRange{init(conv.getOutputs()[0])},
                 stridesAndDilations(op))
          .getResult(0);
    if (isa<linalg::PoolingNchwMaxOp>(op))
      return pooling<linalg::PoolingNhwcMaxOp>(op, result);
    if (isa<linalg::PoolingNchwSumOp>(op))
      return pooling<linalg::PoolingNhwcSumOp>(op, result);
    if (auto pad = dyn_cast<tensor::PadOp>(op))
      return tensor::PadOp::create(
          builder, loc, result, image(pad.getSource()),
          getAsOpFoldResult(builder.getI64ArrayAttr(
              applyPermutation(pad.getStaticLow(), kToNhwc))),
          getAsOpFoldResult(builder.getI64ArrayAttr(
              applyPermutation(pad.getStaticHigh(), kToNhwc))),
          pad.getConstantPaddingValue(), pad.getNofold());
    return generic(cast<linalg::GenericOp>(op), result);
  }

  SmallVector<NamedAttribute> stridesAndDilations(Operation *op) {
    SmallVector<NamedAttribute> attrs;
    for (StringRef name : {"strides", "dilations"})
      if (Attribute attr = op->getAttr(name))
        attrs.push_back(builder.getNamedAttr(name, attr));
    return attrs;
  }

  template <typename NhwcOp> Value pooling(Operation *op, Type result) {
    auto pooling = cast<linalg::LinalgOp>(op);
    return NhwcOp::create(builder, op->getLoc(), TypeRange{result},
                          ValueRange{image(pooling.getDpsInputs()[0]),
                                     pooling.getDpsInputs()[1]},
                          ValueRange{init(pooling.getDpsInits()[0])},
                          stridesAndDilations(op))
        .getResult(0);
  }

  /// The generic over NHWC loops: new loop k is old loop kToNhwc[k], so an
  /// old map M reads through M(loops in NCHW order), and an image in NHWC
  /// through those results permuted the same way. Other images keep their
  /// layout.
  Value generic(linalg::GenericOp op, Type result) {
    MLIRContext *context = builder.getContext();
    SmallVector<AffineExpr> oldLoops(4);
    for (int64_t k = 0; k < 4; ++k)
      oldLoops[kToNhwc[k]] = getAffineDimExpr(k, context);
    AffineMap fromNhwcLoops = AffineMap::get(4, 0, oldLoops, context);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *operand : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(operand).compose(fromNhwcLoops);
      Value value = operand->get();
      // A region image, or an image transposed already on entry.
      if (inRegion(value) || nhwc.count(value)) {
        value = image(value);
        map = AffineMap::get(4, 0, applyPermutation(map.getResults(), kToNhwc),
                             context);
      }
      inputs.push_back(value);
      maps.push_back(map);
    }
    maps.push_back(builder.getMultiDimIdentityMap(4));
    auto twin =
        linalg::GenericOp::create(builder, op.getLoc(), TypeRange{result},
                                  inputs, ValueRange{init(op.getDpsInits()[0])},
                                  maps, op.getIteratorTypesArray());
    twin.getRegion().takeBody(op.getRegion());
    return twin.getResult(0);
  }

  /// Whether `value` is an image the region computes.
  bool inRegion(Value value) const {
    return region.contains(value.getDefiningOp());
  }

  /// `value` (NCHW) in NHWC: the region's own, else transposed once.
  Value image(Value value) {
    if (Value known = nhwc.lookup(value))
      return known;
    Value transposed = transpose(value, kToNhwc);
    nhwc[value] = transposed;
    return transposed;
  }

  /// An init in NHWC: a fresh fill or empty tensor where the NCHW one was
  /// one, else the image.
  Value init(Value value) {
    Type type = permutedType(value.getType(), kToNhwc);
    auto shape = cast<RankedTensorType>(type);
    if (auto fill = value.getDefiningOp<linalg::FillOp>();
        fill && fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
      return linalg::FillOp::create(builder, fill.getLoc(), fill.value(),
                                    empty(fill.getLoc(), shape))
          .getResult(0);
    if (auto e = value.getDefiningOp<tensor::EmptyOp>())
      return empty(e.getLoc(), shape);
    return image(value);
  }

  Value empty(Location loc, RankedTensorType type) {
    return tensor::EmptyOp::create(builder, loc, type.getShape(),
                                   type.getElementType());
  }

  Value transpose(Value value, ArrayRef<int64_t> permutation) {
    Location loc = value.getLoc();
    Value out = empty(loc, permutedType(value.getType(), permutation));
    return linalg::TransposeOp::create(builder, loc, value, out, permutation)
        .getResult()[0];
  }

  /// An FCHW filter as HWCF: a constant's elements (an `arith.constant`'s
  /// or an immutable global's) moved here, once per module; any other
  /// filter transposed when the program runs, once per block.
  Value filter(Value value) {
    Value &known = hwcf[value];
    if (!known)
      known = storedFilter(value);
    if (!known)
      known = transpose(value, kToHwcf);
    return known;
  }

  Value storedFilter(Value value) {
    Type type = value.getType();
    if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
      ElementsAttr elements = stored.elements(constant.getValue(), type);
      return elements ? arith::ConstantOp::create(builder, constant.getLoc(),
                                                  elements)
                      : Value();
    }
    auto load = value.getDefiningOp<ml_program::GlobalLoadConstOp>();
    auto global =
        load ? SymbolTable::lookupNearestSymbolFrom<ml_program::GlobalOp>(
                   load, load.getGlobalAttr())
             : nullptr;
    ml_program::GlobalOp twin = global ? stored.global(global, type) : nullptr;
    if (!twin)
      return {};
    // The twin sits in the global's symbol table: the load's reference
    // with its last name replaced.
    SymbolRefAttr ref = load.getGlobalAttr();
    auto name = FlatSymbolRefAttr::get(twin.getSymNameAttr());
    SmallVector<FlatSymbolRefAttr> path(ref.getNestedReferences());
    if (!path.empty()) {
      path.back() = name;
      ref = SymbolRefAttr::get(ref.getRootReference(), path);
    } else {
      ref = name;
    }
    return ml_program::GlobalLoadConstOp::create(builder, load.getLoc(),
                                                 twin.getType(), ref);
  }

  /// Readers of `old` other than the region's ops reading it as an image
  /// read `twin` transposed back, once.
  void leaveRegion(Value old, Value twin) {
    Value back;
    for (OpOperand &use : llvm::make_early_inc_range(old.getUses())) {
      if (region.contains(use.getOwner()) &&
          llvm::is_contained(imageOperands(use.getOwner()), &use))
        continue;
      if (!back) {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointAfterValue(twin);
        back = transpose(twin, kToNchw);
      }
      use.set(back);
    }
  }

  OpBuilder builder;
  const llvm::SetVector<Operation *> &region;
  StoredFilters &stored;
  llvm::DenseMap<Value, Value> nhwc;
  /// Each filter (FCHW) as HWCF.
  llvm::DenseMap<Value, Value> hwcf;
};

struct ChannelsLastPass
    : mlir::spmd::impl::SpmdChannelsLastBase<ChannelsLastPass> {
  void runOnOperation() override {
    // The images transposed at a region's borders are buffers a plan made
    // under a memory budget did not price.
    if (getOperation()->hasAttr(mlir::spmd::SpmdDialect::kMemoryBudgetAttrName))
      return;
    SmallVector<Block *> blocks;
    getOperation().walk([&](linalg::Conv2DNchwFchwOp conv) {
      if (hasNhwcTwin(conv) && !llvm::is_contained(blocks, conv->getBlock()))
        blocks.push_back(conv->getBlock());
    });
    StoredFilters stored;
    for (Block *block : blocks) {
      llvm::SetVector<Operation *> region = regionOf(*block);
      RegionRewriter(&getContext(), region, stored).rewrite();
    }
  }
};
} // namespace
