//===- ShardingInterface.cpp - What an op tells the compiler --------------===//

#include "ir/ShardingInterface.h"
#include "ir/Namespaces.h"
#include "ir/ShardingModels.h"
#include "ir/SpmdDialect.h"

using namespace mlir;
using namespace mlir::spmd;

#include "ir/ShardingInterface.cpp.inc"

bool mlir::spmd::touchesTensors(Operation *op) {
  auto isTensor = [](Type t) { return llvm::isa<TensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

/// `attrs` without propagation's shardings, which describe global values,
/// and a plan's factor split, which the global op was computed by.
static DictionaryAttr withoutShardings(MLIRContext *context,
                                       DictionaryAttr attrs) {
  auto isSharding = [](NamedAttribute attr) {
    return attr.getName() == SpmdDialect::kShardingAttrName ||
           attr.getName() == SpmdDialect::kOriginsAttrName ||
           attr.getName() == SpmdDialect::kFactorSplitAttrName;
  };
  if (llvm::none_of(attrs, isSharding))
    return attrs;
  NamedAttrList kept;
  for (NamedAttribute attr : attrs)
    if (!isSharding(attr))
      kept.push_back(attr);
  return kept.getDictionary(context);
}

Operation *mlir::spmd::cloneLocal(LocalRebuild &rebuild) {
  Operation *global = rebuild.getOp();
  IRMapping &mapping = rebuild.mapping();
  MLIRContext *context = global->getContext();
  // The global program is erased once partitioned, so the local op takes
  // the global op's regions instead of copies of them (copying bodies was
  // a tenth of partitioning time); what they read from outside is remapped.
  SmallVector<Block *> successors;
  for (Block *successor : global->getSuccessors())
    successors.push_back(mapping.lookupOrDefault(successor));
  Operation *local = Operation::create(
      global->getLoc(), global->getName(), rebuild.resultTypes(),
      rebuild.operands(),
      withoutShardings(context, global->getRawDictionaryAttrs()),
      global->getPropertiesStorage(), successors, global->getNumRegions());
  rebuild.builder().insert(local);
  for (auto [from, to] : llvm::zip_equal(global->getRegions(),
                                         local->getRegions()))
    to.takeBody(from);
  mapping.map(global->getResults(), local->getResults());
  // Ops in the regions are computed as they are: their shardings go too.
  for (Region &region : local->getRegions())
    region.walk([&](Operation *nested) {
      for (OpOperand &operand : nested->getOpOperands())
        if (Value mapped = mapping.lookupOrNull(operand.get()))
          operand.set(mapped);
      DictionaryAttr attrs = nested->getRawDictionaryAttrs();
      if (!attrs.empty())
        nested->setDiscardableAttrs(withoutShardings(context, attrs));
    });
  return local;
}

RankedTensorType mlir::spmd::localType(RankedTensorType type,
                                       const MeshInfo &mesh,
                                       const ShardState &state) {
  std::vector<int64_t> shape = localShape(mesh.mesh, type.getShape(), state);
  return RankedTensorType::get(shape, type.getElementType());
}

std::optional<OpShardingRule> mlir::spmd::getShardingRule(Operation *op) {
  if (!rules::allStatic(op))
    return std::nullopt;
  if (auto sharding = llvm::dyn_cast<ShardingOpInterface>(op))
    return sharding.getShardingRule();
  return traitRule(op);
}

LogicalResult mlir::spmd::verifyShardingRule(Operation *op,
                                             const OpShardingRule &rule) {
  auto fail = [&](const Twine &why) {
    return op->emitError() << "the sharding rule of '" << op->getName()
                           << "' " << why;
  };
  unsigned numTensors = op->getNumOperands() + op->getNumResults();
  if (rule.numTensors() != numTensors)
    return fail("lists " + Twine(rule.numTensors()) + " tensors for " +
                Twine(numTensors) + " operands and results");
  auto rankOf = [&](unsigned t) -> int64_t {
    Value value = t < op->getNumOperands()
                      ? op->getOperand(t)
                      : op->getResult(t - op->getNumOperands());
    auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
    return type ? type.getRank() : 0;
  };
  for (auto [t, dims] : llvm::enumerate(rule.tensors)) {
    if (int64_t(dims.size()) != rankOf(t))
      return fail("gives tensor " + Twine(t) + " " + Twine(dims.size()) +
                  " dimensions; it has " + Twine(rankOf(t)));
    for (const DimFactors &factors : dims)
      for (unsigned f : factors)
        if (f >= rule.numFactors())
          return fail("names factor " + Twine(f) + " of " +
                      Twine(rule.numFactors()));
  }
  for (const WindowedDim &window : rule.windows)
    if (window.operand >= op->getNumOperands() ||
        window.dim >= rankOf(window.operand) ||
        window.factor >= rule.numFactors() || window.stride < 1)
      return fail("has a window outside its operands and factors");
  return success();
}

std::optional<ReductionKind> mlir::spmd::getReductionKind(Operation *op,
                                                          unsigned result) {
  if (auto sharding = llvm::dyn_cast<ShardingOpInterface>(op))
    return sharding.getReductionKind(result);
  return std::nullopt;
}

std::optional<ReductionKind> mlir::spmd::getSplitReductionKind(Operation *op) {
  std::optional<ReductionKind> kind;
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    if (!llvm::isa<RankedTensorType>(result.getType()))
      continue;
    std::optional<ReductionKind> k = getReductionKind(op, i);
    if (!k || (kind && *kind != *k))
      return std::nullopt;
    kind = k;
  }
  return kind;
}
