//===- OptimizeCollectivesPass.cpp - spmd-optimize-collectives ------------===//

#include "ir/LocalIR.h"
#include "ir/Namespaces.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDOPTIMIZECOLLECTIVES
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;
using namespace mlir::spmd;

/// The number of devices in each group of a collective, or 0 if unknown;
/// remembered per mesh and axes (a long program has thousands of
/// collectives over a few groups).
class GroupSizes {
public:
  int64_t of(CollectiveOpInterface op) {
    auto [it, inserted] =
        sizes.try_emplace({op.getMeshAttr(), op.getAxesAttr()}, 0);
    if (inserted)
      it->second = compute(op);
    return it->second;
  }

private:
  int64_t compute(CollectiveOpInterface op) {
    auto mesh = tables.lookupNearestSymbolFrom<MeshOp>(op, op.getMeshAttr());
    if (!mesh)
      return 0;
    DeviceMesh value = mesh.getMesh().toMesh();
    int64_t size = 1;
    for (auto axis : op.getAxesAttr().getAsRange<StringAttr>())
      size *= value.axisSize(*value.axisIndex(axis.getValue()));
    return size;
  }

  SymbolTableCollection tables;
  llvm::DenseMap<std::pair<Attribute, Attribute>, int64_t> sizes;
};

/// Whether `a` and `b` run over the same groups.
static bool sameGroups(CollectiveOpInterface a, CollectiveOpInterface b) {
  return a.getMeshAttr() == b.getMeshAttr() &&
         a.getAxesAttr() == b.getAxesAttr();
}

/// The value `op` passes through unchanged, if it does.
static Value passThrough(Operation *op, GroupSizes &groupSizes) {
  auto collective = llvm::dyn_cast<CollectiveOpInterface>(op);
  if (!collective)
    return {};
  Value input = op->getOperand(0);
  if (groupSizes.of(collective) == 1 &&
      input.getType() == op->getResult(0).getType())
    return input;
  // all_slice(all_gather(x)) == x, and all_gather(all_slice(x)) == x (the
  // slice's input is replicated over the axes).
  if (auto slice = llvm::dyn_cast<AllSliceOp>(op))
    if (auto gather = input.getDefiningOp<AllGatherOp>())
      if (sameGroups(slice, gather) &&
          slice.getSliceDim() == gather.getGatherDim() &&
          gather.getInput().getType() == slice.getType())
        return gather.getInput();
  if (auto gather = llvm::dyn_cast<AllGatherOp>(op))
    if (auto slice = input.getDefiningOp<AllSliceOp>())
      if (sameGroups(slice, gather) &&
          slice.getSliceDim() == gather.getGatherDim() &&
          slice.getInput().getType() == gather.getType())
        return slice.getInput();
  return {};
}

/// All-reduces smaller than this are combined with their neighbours.
static constexpr int64_t kSmallBytes = 1 << 20;

/// The position of `op`'s ancestor in `block`, in block order.
static Operation *ancestorIn(Block *block, Operation *op) {
  return block->findAncestorOpInBlock(*op);
}

/// Combines all-reduces of one block over the same axes, reduction and
/// element type, each smaller than kSmallBytes, into one: their operands are
/// flattened and concatenated, reduced once, and split back. An all-reduce
/// joins a group when its operand exists before the first use of any result
/// of the group, where the combined all-reduce is placed.
static void combineAllReduces(Block &block) {
  SmallVector<AllReduceOp> candidates;
  for (Operation &op : block)
    if (auto reduce = llvm::dyn_cast<AllReduceOp>(op))
      if (reduce.getType().hasStaticShape() &&
          reduce.getType().getNumElements() *
                  elementBytes(reduce.getType().getElementType()) <=
              kSmallBytes)
        candidates.push_back(reduce);
  // First use (in this block) of a value: where a combined op must be by.
  auto firstUse = [&](Value value) {
    Operation *first = block.getTerminator();
    for (Operation *user : value.getUsers())
      if (Operation *at = ancestorIn(&block, user))
        if (at->isBeforeInBlock(first))
          first = at;
    return first;
  };
  auto availableBefore = [&](Value value, Operation *point) {
    Operation *def = value.getDefiningOp();
    if (!def)
      return true;
    Operation *at = ancestorIn(&block, def);
    return !at || at->isBeforeInBlock(point);
  };
  llvm::DenseSet<Operation *> done;
  for (size_t i = 0; i < candidates.size(); ++i) {
    AllReduceOp head = candidates[i];
    if (done.contains(head))
      continue;
    SmallVector<AllReduceOp> group = {head};
    Operation *point = firstUse(head.getResult());
    for (size_t j = i + 1; j < candidates.size(); ++j) {
      AllReduceOp next = candidates[j];
      // Only all-reduces before the group's first use join it (those after
      // it rarely have their operand ready there), which keeps the scan
      // short in chains where each result is used at once.
      if (point->isBeforeInBlock(next))
        break;
      if (done.contains(next) || next.getMeshAttr() != head.getMeshAttr() ||
          next.getAxesAttr() != head.getAxesAttr() ||
          next.getReduction() != head.getReduction() ||
          next.getType().getElementType() != head.getType().getElementType() ||
          !availableBefore(next.getInput(), point) ||
          // Reducing a member's result again: it needs that one done.
          llvm::is_contained(group, next.getInput().getDefiningOp()))
        continue;
      group.push_back(next);
      Operation *use = firstUse(next.getResult());
      if (use->isBeforeInBlock(point))
        point = use;
    }
    if (group.size() < 2)
      continue;
    // Every member's operand must exist before the (possibly earlier) point.
    if (!llvm::all_of(group, [&](AllReduceOp op) {
          return availableBefore(op.getInput(), point);
        }))
      continue;
    OpBuilder b(point);
    Location loc = head.getLoc();
    Type element = head.getType().getElementType();
    SmallVector<Value> flat;
    SmallVector<int64_t> sizes;
    for (AllReduceOp op : group) {
      RankedTensorType type = op.getType();
      int64_t n = type.getNumElements();
      sizes.push_back(n);
      auto flatType = RankedTensorType::get({n}, element);
      SmallVector<ReassociationIndices> all;
      if (type.getRank() > 0) {
        all.emplace_back();
        for (int64_t d = 0; d < type.getRank(); ++d)
          all.back().push_back(d);
        flat.push_back(tensor::CollapseShapeOp::create(b, loc, flatType,
                                                       op.getInput(), all));
      } else {
        flat.push_back(tensor::ExpandShapeOp::create(b, loc, flatType,
                                                     op.getInput(), all));
      }
    }
    Value joined = tensor::ConcatOp::create(b, loc, 0, flat);
    Value reduced = AllReduceOp::create(b, loc, joined.getType(), joined,
                                        head.getMeshAttr(), head.getAxesAttr(),
                                        head.getReductionAttr());
    // The combined collective stands for every member's reshard.
    int64_t minBytes = 0;
    bool known = true;
    for (AllReduceOp op : group) {
      auto bytes =
          op->getAttrOfType<IntegerAttr>(SpmdDialect::kMinBytesAttrName);
      known &= bool(bytes);
      minBytes += bytes ? bytes.getInt() : 0;
    }
    if (known)
      reduced.getDefiningOp()->setAttr(SpmdDialect::kMinBytesAttrName,
                                       b.getI64IntegerAttr(minBytes));
    int64_t offset = 0;
    for (auto [op, n] : llvm::zip_equal(group, sizes)) {
      RankedTensorType type = op.getType();
      Value part = extractSlice(b, loc, nullptr, reduced,
                                ArrayRef<OpFoldResult>{b.getIndexAttr(offset)},
                                ArrayRef<OpFoldResult>{b.getIndexAttr(n)},
                                ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
      SmallVector<ReassociationIndices> all;
      if (type.getRank() > 0) {
        all.emplace_back();
        for (int64_t d = 0; d < type.getRank(); ++d)
          all.back().push_back(d);
        part = tensor::ExpandShapeOp::create(b, loc, type, part, all);
      } else {
        part = tensor::CollapseShapeOp::create(b, loc, type, part, all);
      }
      op.getResult().replaceAllUsesWith(part);
      done.insert(op);
      offset += n;
    }
    for (AllReduceOp op : group)
      op.erase();
  }
}

/// Makes each collective that an identical one (same operands, attributes
/// and types) dominates use that one's result instead: the bytes move
/// once. Only collectives are compared: a CSE of the whole module would
/// cost more than the rest of the pass on long programs, for ops this pass
/// has no reason to touch.
static void mergeIdenticalCollectives(ArrayRef<Operation *> collectives,
                                      DominanceInfo &dominance) {
  llvm::DenseMap<Value, SmallVector<Operation *, 1>> byInput;
  for (Operation *op : collectives) {
    if (op->use_empty()) // Removed already (or never needed).
      continue;
    SmallVector<Operation *, 1> &earlier = byInput[op->getOperand(0)];
    auto *same = llvm::find_if(earlier, [&](Operation *candidate) {
      return OperationEquivalence::isEquivalentTo(
                 candidate, op, OperationEquivalence::IgnoreLocations) &&
             dominance.properlyDominates(candidate, op);
    });
    if (same != earlier.end())
      op->replaceAllUsesWith(*same);
    else
      earlier.push_back(op);
  }
}

namespace {
struct OptimizeCollectivesPass
    : mlir::spmd::impl::SpmdOptimizeCollectivesBase<OptimizeCollectivesPass> {
  void runOnOperation() override {
    GroupSizes groupSizes;
    // One walk finds both: walking a long program is most of this pass.
    SmallVector<Operation *> collectives;
    SmallVector<Block *> blocks;
    getOperation().walk([&](Operation *op) {
      if (llvm::isa<CollectiveOpInterface>(op))
        collectives.push_back(op);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          blocks.push_back(&block);
    });
    for (Operation *op : collectives)
      if (Value input = passThrough(op, groupSizes))
        op->getResult(0).replaceAllUsesWith(input);
    DominanceInfo dominance(getOperation());
    mergeIdenticalCollectives(collectives, dominance);
    for (Operation *op : llvm::reverse(collectives))
      if (op->use_empty())
        op->erase();
    for (Block *block : blocks)
      if (!block->empty() && block->mightHaveTerminator())
        combineAllReduces(*block);
  }
};
} // namespace
