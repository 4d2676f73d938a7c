//===- CapturedReads.cpp - Tables a linalg body reads with tensor.extract -===//
//
// An embedding lookup reads a table defined outside the op's body:
//   ^bb0(%id: i64, %out: f32):
//     %v = tensor.extract %table[%id_as_index, linalg.index 2]
// A split table dimension stays split when every read of it is one of:
//   - at a loop position whose loop is split the same way (the hidden
//     dimension of a lookup whose output is split alike): each device reads
//     its own shard, nothing moves;
//   - at a position from data (a token id) in a body that only yields what
//     it reads: each device reads its shard where it holds the position and
//     yields zero elsewhere, so the result is a pending sum over the table's
//     axes (vocabulary-parallel embedding: one all-reduce of the output
//     instead of a gather of the table).
// Other dimensions are gathered. Every read is clamped into the local
// shard, so padded iterations (whose ids are padding) read in bounds.
//
//===----------------------------------------------------------------------===//

#include "partitioner/CapturedReads.h"

#include "ir/Namespaces.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::spmd;

/// The loop whose position `index` is, if it is one.
static std::optional<unsigned> loopOf(Value index) {
  if (auto position = index.getDefiningOp<linalg::IndexOp>())
    return position.getDim();
  return std::nullopt;
}

/// Whether `op` only yields reads of `table` and has no reductions: a read
/// may then yield zero where the device does not hold the position, and
/// the results become pending sums.
static bool onlyYieldsReadsOf(linalg::LinalgOp op, Value table) {
  if (op.getNumReductionLoops() != 0)
    return false;
  return llvm::all_of(
      op.getBlock()->getTerminator()->getOperands(), [&](Value yielded) {
        auto extract = yielded.getDefiningOp<tensor::ExtractOp>();
        return extract && extract.getTensor() == table;
      });
}

ShardState mlir::spmd::capturedReadLayout(linalg::LinalgOp op, Value table,
                                          const ShardState &current,
                                          const DeviceMesh &mesh,
                                          ArrayRef<AxisList> loopAxes,
                                          ArrayRef<int64_t> loopSizes,
                                          AxisList *pendingAxes) {
  auto type = llvm::cast<RankedTensorType>(table.getType());
  assert(current.dims.size() == size_t(type.getRank()) &&
         loopAxes.size() == loopSizes.size() &&
         "a layout of the table's rank, axes per loop");
  // Axes that split the op's loops: a pending sum over one of them would
  // add up different devices' outputs.
  AxisList loopUsed;
  for (const AxisList &axes : loopAxes)
    loopUsed.append(axes.begin(), axes.end());
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  ShardState layout;
  layout.dims.resize(type.getRank());
  bool allExtracts = llvm::all_of(table.getUses(), [&](OpOperand &use) {
    return !op->isProperAncestor(use.getOwner()) ||
           llvm::isa<tensor::ExtractOp>(use.getOwner());
  });
  for (int64_t d = 0; allExtracts && d < type.getRank(); ++d) {
    const AxisList &axes = current.dims[d];
    if (axes.empty() || !current.partial.empty())
      continue;
    int64_t shard = llvm::divideCeil(type.getDimSize(d), mesh.groupSize(axes));
    bool keep = true, pending = false;
    for (OpOperand &use : table.getUses()) {
      auto extract = llvm::dyn_cast<tensor::ExtractOp>(use.getOwner());
      if (!extract || !op->isProperAncestor(extract))
        continue;
      std::optional<unsigned> loop = loopOf(extract.getIndices()[d]);
      if (loop && loopAxes[*loop] == axes &&
          int64_t(llvm::divideCeil(loopSizes[*loop], mesh.groupSize(axes))) ==
              shard)
        continue;
      if (captured.size() == 1 && onlyYieldsReadsOf(op, table) &&
          llvm::none_of(axes, [&](AxisIndex a) {
            return llvm::is_contained(loopUsed, a);
          })) {
        pending = true;
        continue;
      }
      keep = false;
    }
    if (!keep)
      continue;
    layout.dims[d] = axes;
    if (pending && pendingAxes)
      pendingAxes->append(axes.begin(), axes.end());
  }
  return layout;
}

FailureOr<CapturedReads>
mlir::spmd::planCapturedReads(linalg::LinalgOp op, Partitioner &p,
                              const MeshInfo &mesh, ArrayRef<AxisList> loopAxes,
                              ArrayRef<int64_t> loopSizes) {
  CapturedReads reads;
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  for (Value table : captured) {
    if (!llvm::isa<RankedTensorType>(table.getType()) || !p.has(table))
      continue;
    ShardState layout =
        capturedReadLayout(op, table, p.lookup(table).state, mesh.mesh,
                           loopAxes, loopSizes, &reads.pendingAxes);
    FailureOr<Value> local = p.get(op, table, layout);
    if (failed(local))
      return failure();
    reads.tables.push_back({table, *local, std::move(layout)});
  }
  return reads;
}

void mlir::spmd::rewriteCapturedReads(OpBuilder &b, linalg::LinalgOp local,
                                      const CapturedReads &reads,
                                      const MeshInfo &mesh) {
  OpBuilder::InsertionGuard guard(b);
  for (const CapturedReads::Table &table : reads.tables) {
    auto global = llvm::cast<RankedTensorType>(table.global.getType());
    SmallVector<tensor::ExtractOp> extracts;
    for (OpOperand &use : table.local.getUses())
      if (auto extract = llvm::dyn_cast<tensor::ExtractOp>(use.getOwner()))
        if (local->isProperAncestor(extract))
          extracts.push_back(extract);
    // Shard offsets are computed once, before the op.
    b.setInsertionPoint(local);
    SmallVector<Value> offsets;
    for (auto [d, axes] : llvm::enumerate(table.layout.dims))
      offsets.push_back(
          axes.empty()
              ? Value()
              : shardOffset(b, local.getLoc(), mesh, axes,
                            llvm::divideCeil(global.getDimSize(d),
                                             mesh.mesh.groupSize(axes))));
    for (tensor::ExtractOp extract : extracts) {
      b.setInsertionPoint(extract);
      Location loc = extract.getLoc();
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value holds;
      SmallVector<Value> indices;
      for (auto [d, index] : llvm::enumerate(extract.getIndices())) {
        const AxisList &axes = table.layout.dims[d];
        int64_t shard =
            llvm::divideCeil(global.getDimSize(d), mesh.mesh.groupSize(axes));
        Value position = axes.empty()
                             ? index
                             : arith::SubIOp::create(b, loc, index, offsets[d]);
        Value above = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                            position, zero);
        Value below = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::slt, position,
            arith::ConstantIndexOp::create(b, loc, shard));
        Value inside = arith::AndIOp::create(b, loc, above, below);
        indices.push_back(
            arith::SelectOp::create(b, loc, inside, position, zero));
        if (!axes.empty())
          holds = holds ? arith::AndIOp::create(b, loc, holds, inside) : inside;
      }
      Value read = tensor::ExtractOp::create(b, loc, table.local, indices);
      if (holds && !reads.pendingAxes.empty())
        read = arith::SelectOp::create(
            b, loc, holds, read,
            arith::ConstantOp::create(
                b, loc, identityOf(b, ReductionKind::Sum, read.getType())));
      extract.getResult().replaceAllUsesWith(read);
      extract.erase();
    }
  }
}
