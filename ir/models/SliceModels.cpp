//===- SliceModels.cpp - Slices, pads and concatenation -------------------===//
//
// A dimension a slice, pad or concat leaves whole is a parallel factor. One
// it cuts, pads or joins is a permutation factor shared by the tensors, or,
// when only one side has it (the source dimension of a partial
// insert_slice, a dimension a rank-reducing slice drops), a factor of that
// tensor alone. A static slice reads `source[stride * i + offset]` and a
// pad with a constant value `source[i - low]`: windows, so a split cut or
// padded dimension reads its neighbours' elements through halos, and the
// local op then cuts (or pads) nothing more along it.
//
//===----------------------------------------------------------------------===//

#include "ir/ShardingModels.h"

#include "ir/LocalIR.h"
#include "ir/Namespaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::spmd;

/// Whether [offset, offset + size) with `stride` covers all of `dim`.
static bool coversWhole(int64_t offset, int64_t size, int64_t stride,
                        int64_t dim) {
  return offset == 0 && size == dim && stride == 1;
}

/// `values` with the global scalars in them mapped to local ones.
static SmallVector<OpFoldResult> mapAll(SmallVector<OpFoldResult> values,
                                        IRMapping &mapping) {
  for (OpFoldResult &v : values)
    if (auto value = llvm::dyn_cast<Value>(v))
      v = mapping.lookupOrDefault(value);
  return values;
}

namespace {
struct ExtractSliceModel
    : ShardingOpInterface::ExternalModel<ExtractSliceModel,
                                         tensor::ExtractSliceOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    auto slice = llvm::cast<tensor::ExtractSliceOp>(op);
    ArrayRef<int64_t> source = slice.getSourceType().getShape();
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    OpShardingRule rule;
    TensorFactors sourceDims, resultDims;
    for (auto [d, size] : llvm::enumerate(source)) {
      int64_t offset = slice.getStaticOffsets()[d],
              length = slice.getStaticSizes()[d],
              stride = slice.getStaticStrides()[d];
      bool whole = coversWhole(offset, length, stride, size);
      unsigned f =
          rule.addFactor(ShapedType::isDynamic(length) ? size : length,
                         whole ? FactorKind::Parallel : FactorKind::Permutation);
      sourceDims.push_back({f});
      if (!dropped.test(d))
        resultDims.push_back({f});
      if (!whole && !dropped.test(d) && !ShapedType::isDynamic(offset) &&
          !ShapedType::isDynamic(length) && !ShapedType::isDynamic(stride) &&
          stride >= 1)
        rule.windows.push_back({0, unsigned(d), f, stride, 0, offset});
    }
    rule.addTensor(std::move(sourceDims));
    rules::addScalars(rule, op->getNumOperands() - 1);
    rule.addTensor(std::move(resultDims));
    return rule;
  }

  /// A slice copies what its windows name (partitionByRule checks that
  /// they have stride 1 and that no dimension is dropped).
  bool onlyMovesThroughWindows(Operation *) const { return true; }

  /// A static slice lying inside one shard of each split dimension it cuts
  /// is cut on the devices holding it, and the result is a partial sum over
  /// those dimensions' axes that only they contribute to (the others hold
  /// zeros): the block alone moves, by whatever reshard its uses need (an
  /// all_reduce, a reduce_scatter), never every shard. Other slices go by
  /// the rule.
  LogicalResult partition(Operation *op, PartitionContext &context) const {
    auto slice = llvm::cast<tensor::ExtractSliceOp>(op);
    const LocalValue &source = context.lookup(slice.getSource());
    const ShardState &state = source.state;
    ArrayRef<int64_t> shape = slice.getSourceType().getShape();
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    if (!state.partial.empty() || !slice.getType().hasStaticShape())
      return context.partitionByRule(op);
    // Per cut split dimension: the shard holding the slice.
    SmallVector<std::optional<int64_t>> owner(shape.size());
    bool cutsSplit = false;
    for (unsigned d = 0; d < shape.size(); ++d) {
      int64_t offset = slice.getStaticOffsets()[d],
              size = slice.getStaticSizes()[d],
              stride = slice.getStaticStrides()[d];
      if (state.dims[d].empty() || (!ShapedType::isDynamic(offset) &&
                                    coversWhole(offset, size, stride, shape[d])))
        continue;
      if (ShapedType::isDynamic(offset) || ShapedType::isDynamic(size) ||
          ShapedType::isDynamic(stride) || size < 1 || stride < 1)
        return context.partitionByRule(op);
      int64_t shard = llvm::divideCeil(
          shape[d], source.mesh->mesh.groupSize(state.dims[d]));
      if (offset / shard != (offset + (size - 1) * stride) / shard)
        return context.partitionByRule(op);
      owner[d] = offset / shard;
      cutsSplit = true;
    }
    if (!cutsSplit)
      return context.partitionByRule(op);

    OpBuilder &b = context.builder();
    Location loc = op->getLoc();
    auto local = llvm::cast<RankedTensorType>(source.local.getType());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    SmallVector<int64_t> resultShape;
    ShardState result;
    result.reduction = ReductionKind::Sum;
    SmallVector<OpFoldResult> mixedOffsets = slice.getMixedOffsets();
    SmallVector<OpFoldResult> mixedSizes = slice.getMixedSizes();
    SmallVector<OpFoldResult> mixedStrides = slice.getMixedStrides();
    auto mapped = [&](OpFoldResult v) -> OpFoldResult {
      if (auto value = llvm::dyn_cast<Value>(v))
        return context.current(value);
      return v;
    };
    for (unsigned d = 0, r = 0; d < shape.size(); ++d) {
      OpFoldResult offset = mapped(mixedOffsets[d]);
      OpFoldResult size = mapped(mixedSizes[d]);
      if (owner[d]) {
        // Within this device's shard (meaningful on the owner only).
        offset = b.getIndexAttr(slice.getStaticOffsets()[d] -
                                *owner[d] * local.getDimSize(d));
      } else if (!state.dims[d].empty()) {
        offset = b.getIndexAttr(0);
        size = b.getIndexAttr(local.getDimSize(d));
      }
      offsets.push_back(offset);
      sizes.push_back(size);
      strides.push_back(mapped(mixedStrides[d]));
      if (owner[d])
        result.partial.append(state.dims[d].begin(), state.dims[d].end());
      if (dropped.test(d))
        continue;
      // The result's static size, or the local one of a split whole dim.
      resultShape.push_back(!owner[d] && !state.dims[d].empty()
                                ? local.getDimSize(d)
                                : slice.getType().getDimSize(r));
      ++r;
      result.dims.push_back(owner[d] ? AxisList() : state.dims[d]);
    }
    auto resultType =
        RankedTensorType::get(resultShape, slice.getType().getElementType());
    Value cut =
        extractSlice(b, loc, resultType, source.local, offsets, sizes, strides);
    // The holders: the owner's position over the pending axes (every cut
    // split dimension's axes, in order).
    int64_t position = 0;
    for (unsigned d = 0; d < shape.size(); ++d)
      if (owner[d])
        position = position * source.mesh->mesh.groupSize(state.dims[d]) +
                   *owner[d];
    cut = keepOnOne(
        b, loc, cut, *source.mesh, result.partial,
        identityOf(b, ReductionKind::Sum, resultType.getElementType()),
        position);
    context.set(slice.getResult(), {cut, source.mesh, result});
    return success();
  }

  /// Split dimensions are whole or windows: a whole one has the local
  /// size, and a window arrives as exactly what this device's results read
  /// (halo exchanged), so it is taken from its start.
  Operation *buildLocal(Operation *op, LocalRebuild &rebuild) const {
    auto slice = llvm::cast<tensor::ExtractSliceOp>(op);
    OpBuilder &b = rebuild.builder();
    Value source = rebuild.operand(0);
    auto sourceLocal = llvm::cast<RankedTensorType>(source.getType());
    auto result = llvm::cast<RankedTensorType>(rebuild.resultTypes()[0]);
    SmallVector<OpFoldResult> offsets =
        mapAll(slice.getMixedOffsets(), rebuild.mapping());
    SmallVector<OpFoldResult> sizes =
        mapAll(slice.getMixedSizes(), rebuild.mapping());
    unsigned r = 0;
    for (unsigned d = 0; d < sourceLocal.getRank(); ++d) {
      if (slice.getDroppedDims().test(d))
        continue;
      int64_t global = slice.getSourceType().getDimSize(d);
      std::optional<int64_t> size = getConstantIntValue(sizes[d]);
      if (sourceLocal.getDimSize(d) != global) {
        if (size && *size != global)
          offsets[d] = b.getIndexAttr(0);
        sizes[d] = b.getIndexAttr(result.getDimSize(r));
      }
      ++r;
    }
    return extractSlice(b, op->getLoc(), result, source, offsets, sizes,
                        mapAll(slice.getMixedStrides(), rebuild.mapping()))
        .getDefiningOp();
  }
};

struct InsertSliceModel
    : ShardingOpInterface::ExternalModel<InsertSliceModel,
                                         tensor::InsertSliceOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    auto insert = llvm::cast<tensor::InsertSliceOp>(op);
    ArrayRef<int64_t> dest = insert.getDestType().getShape();
    ArrayRef<int64_t> source = insert.getSourceType().getShape();
    llvm::SmallBitVector dropped = insert.getDroppedDims();
    OpShardingRule rule;
    TensorFactors sourceDims, destDims;
    // A destination dimension the source covers whole is parallel; one it
    // is inserted into at an offset is a permutation factor (the insertion
    // lands on some shards only).
    unsigned s = 0;
    for (unsigned d = 0; d < dest.size(); ++d) {
      bool whole = !dropped.test(d) &&
                   coversWhole(insert.getStaticOffsets()[d], source[s],
                               insert.getStaticStrides()[d], dest[d]);
      unsigned f = rule.addFactor(dest[d], whole ? FactorKind::Parallel
                                                 : FactorKind::Permutation);
      destDims.push_back({f});
      if (dropped.test(d))
        continue;
      sourceDims.push_back(whole ? DimFactors{f}
                                 : DimFactors{rule.addFactor(
                                       source[s], FactorKind::Permutation)});
      ++s;
    }
    rule.addTensor(std::move(sourceDims));
    rule.addTensor(destDims);
    rules::addScalars(rule, op->getNumOperands() - 2);
    rule.addTensor(std::move(destDims));
    return rule;
  }

  /// A destination split along a dimension the source is inserted into at
  /// an offset (a KV cache split on the sequence, a row written at a
  /// dynamic position) is kept split: every device writes the part of the
  /// (replicated) source that lands on its own shard, and nothing moves.
  /// Other layouts go by the rule.
  LogicalResult partition(Operation *op, PartitionContext &context) const {
    auto insert = llvm::cast<tensor::InsertSliceOp>(op);
    FailureOr<std::pair<const MeshInfo *, ShardState>> layout =
        context.annotatedLayout(insert.getResult());
    if (failed(layout))
      return failure();
    auto [mesh, state] = *layout;
    ArrayRef<int64_t> dest = insert.getDestType().getShape();
    ArrayRef<int64_t> source = insert.getSourceType().getShape();
    // Nothing inserted: the destination as it is (the generic below would
    // read an element of an empty source, though it drops it).
    if (llvm::is_contained(source, 0)) {
      FailureOr<Value> localDest = context.get(op, insert.getDest(), state);
      if (failed(localDest))
        return failure();
      context.set(insert.getResult(), {*localDest, mesh, state});
      return success();
    }
    llvm::SmallBitVector dropped = insert.getDroppedDims();
    // Per destination dimension: the source dimension it takes, if any,
    // and whether the source covers it whole.
    SmallVector<std::optional<unsigned>> sourceDim;
    SmallVector<bool> whole;
    bool splitInserted = false;
    for (unsigned d = 0, s = 0; d < dest.size(); ++d) {
      sourceDim.push_back(dropped.test(d) ? std::nullopt
                                          : std::optional<unsigned>(s++));
      whole.push_back(sourceDim.back() &&
                      coversWhole(insert.getStaticOffsets()[d],
                                  source[*sourceDim.back()],
                                  insert.getStaticStrides()[d], dest[d]));
      if (!whole[d] && !state.dims[d].empty()) {
        if (insert.getStaticStrides()[d] != 1)
          return context.partitionByRule(op);
        splitInserted = true;
      }
    }
    if (!splitInserted || !state.partial.empty())
      return context.partitionByRule(op);

    // The source: split like the destination where it covers it whole,
    // whole where it is inserted at an offset.
    ShardState sourceState;
    for (unsigned d = 0; d < dest.size(); ++d)
      if (sourceDim[d])
        sourceState.dims.push_back(whole[d] ? state.dims[d] : AxisList());
    FailureOr<Value> localSource =
        context.get(op, insert.getSource(), sourceState);
    FailureOr<Value> localDest = context.get(op, insert.getDest(), state);
    if (failed(localSource) || failed(localDest))
      return failure();

    OpBuilder &b = context.builder();
    Location loc = op->getLoc();
    auto destType = llvm::cast<RankedTensorType>(localDest->getType());
    SmallVector<Value> offsets, shardStarts;
    for (auto [d, offset] : llvm::enumerate(insert.getMixedOffsets())) {
      if (auto value = llvm::dyn_cast<Value>(offset))
        offset = context.current(value);
      offsets.push_back(getValueOrCreateConstantIndexOp(b, loc, offset));
      shardStarts.push_back(
          state.dims[d].empty()
              ? Value()
              : shardOffset(b, loc, *mesh, state.dims[d],
                            destType.getDimSize(d)));
    }
    unsigned rank = dest.size();
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value localSourceValue = *localSource;
    auto generic = linalg::GenericOp::create(
        b, loc, TypeRange{destType}, ValueRange{}, ValueRange{*localDest},
        maps, iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value inside;
          SmallVector<Value> at;
          for (unsigned d = 0; d < rank; ++d) {
            Value i = linalg::IndexOp::create(nb, nl, d);
            if (whole[d]) {
              at.push_back(i);
              continue;
            }
            // The source position this element takes, and whether the
            // source covers it.
            Value global = shardStarts[d]
                               ? arith::AddIOp::create(nb, nl, i, shardStarts[d])
                                     .getResult()
                               : i;
            Value rel = arith::SubIOp::create(nb, nl, global, offsets[d]);
            int64_t extent = sourceDim[d] ? source[*sourceDim[d]] : 1;
            Value zero = arith::ConstantIndexOp::create(nb, nl, 0);
            Value in = arith::AndIOp::create(
                nb, nl,
                arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge, rel,
                                      zero),
                arith::CmpIOp::create(
                    nb, nl, arith::CmpIPredicate::slt, rel,
                    arith::ConstantIndexOp::create(nb, nl, extent)));
            inside = inside ? arith::AndIOp::create(nb, nl, inside, in) : in;
            if (sourceDim[d])
              at.push_back(arith::SelectOp::create(nb, nl, in, rel, zero));
          }
          Value written =
              tensor::ExtractOp::create(nb, nl, localSourceValue, at);
          linalg::YieldOp::create(
              nb, nl,
              ValueRange{arith::SelectOp::create(nb, nl, inside, written,
                                                 args[0])});
        });
    context.set(insert.getResult(), {generic.getResult(0), mesh, state});
    return success();
  }

  /// Only dimensions the source covers whole are split: their sizes are
  /// the local source's.
  Operation *buildLocal(Operation *op, LocalRebuild &rebuild) const {
    auto insert = llvm::cast<tensor::InsertSliceOp>(op);
    OpBuilder &b = rebuild.builder();
    Value source = rebuild.operand(0);
    auto sourceLocal = llvm::cast<RankedTensorType>(source.getType());
    SmallVector<OpFoldResult> sizes;
    unsigned s = 0;
    llvm::SmallBitVector dropped = insert.getDroppedDims();
    for (auto [d, size] : llvm::enumerate(insert.getMixedSizes()))
      sizes.push_back(dropped.test(d)
                          ? size
                          : b.getIndexAttr(sourceLocal.getDimSize(s++)));
    return insertSlice(b, op->getLoc(), source, rebuild.operand(1),
                       mapAll(insert.getMixedOffsets(), rebuild.mapping()),
                       mapAll(sizes, rebuild.mapping()),
                       mapAll(insert.getMixedStrides(), rebuild.mapping()))
        .getDefiningOp();
  }
};

struct PadModel : ShardingOpInterface::ExternalModel<PadModel, tensor::PadOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    auto pad = llvm::cast<tensor::PadOp>(op);
    ArrayRef<int64_t> result = pad.getResultType().getShape();
    TypedAttr fill;
    Value value = pad.getConstantPaddingValue();
    bool constant = value && matchPattern(value, m_Constant(&fill));
    OpShardingRule rule;
    TensorFactors dims;
    for (auto [d, size] : llvm::enumerate(result)) {
      int64_t low = pad.getStaticLow()[d], high = pad.getStaticHigh()[d];
      bool unpadded = low == 0 && high == 0;
      unsigned f = rule.addFactor(size, unpadded ? FactorKind::Parallel
                                                 : FactorKind::Permutation);
      dims.push_back({f});
      if (!unpadded && constant && !ShapedType::isDynamic(low) &&
          !ShapedType::isDynamic(high))
        rule.windows.push_back({0, unsigned(d), f, 1, 0, -low, fill});
    }
    rule.addTensor(dims);
    rules::addScalars(rule, op->getNumOperands() - 1);
    rule.addTensor(std::move(dims));
    return rule;
  }

  /// Padded dimensions have windows only when the padding value is a
  /// constant, which their fill then is.
  bool onlyMovesThroughWindows(Operation *) const { return true; }

  /// A padded dimension that arrives as long as the result is this
  /// device's window (halo exchanged, border already filled): nothing to
  /// add along it.
  Operation *buildLocal(Operation *op, LocalRebuild &rebuild) const {
    auto sourceLocal =
        llvm::cast<RankedTensorType>(rebuild.operand(0).getType());
    auto result = llvm::cast<RankedTensorType>(rebuild.resultTypes()[0]);
    auto pad = llvm::cast<tensor::PadOp>(op);
    SmallVector<int64_t> low(pad.getStaticLow()), high(pad.getStaticHigh());
    for (int64_t d = 0; d < result.getRank(); ++d)
      if (sourceLocal.getDimSize(d) == result.getDimSize(d))
        low[d] = high[d] = 0;
    auto local = llvm::cast<tensor::PadOp>(cloneLocal(rebuild));
    local.setStaticLow(low);
    local.setStaticHigh(high);
    return local;
  }
};

/// Concatenation: the joined dimension is a permutation factor with no
/// window (kept whole), the others parallel.
struct ConcatModel
    : ShardingOpInterface::ExternalModel<ConcatModel, tensor::ConcatOp> {
  std::optional<OpShardingRule> getShardingRule(Operation *op) const {
    auto concat = llvm::cast<tensor::ConcatOp>(op);
    OpShardingRule rule;
    TensorFactors dims =
        rules::dimsExcept(rule, concat.getResultType().getShape(),
                          concat.getDim(), FactorKind::Permutation);
    for (unsigned i = 0; i <= op->getNumOperands(); ++i)
      rule.addTensor(dims);
    return rule;
  }
};
} // namespace

void mlir::spmd::registerSliceModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    tensor::ExtractSliceOp::attachInterface<ExtractSliceModel>(*context);
    tensor::InsertSliceOp::attachInterface<InsertSliceModel>(*context);
    tensor::PadOp::attachInterface<PadModel>(*context);
    tensor::ConcatOp::attachInterface<ConcatModel>(*context);
  });
}
