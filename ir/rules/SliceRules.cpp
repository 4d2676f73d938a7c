//===- SliceRules.cpp - Rules of slices, pads and concatenation -----------===//
//
// A dimension a slice, pad or concat leaves whole is a parallel factor. One
// it cuts, pads or joins is a permutation factor shared by the tensors (a
// sharded dimension then needs data from neighbours), or, when only one
// side has it (the source dimension of a partial insert_slice, a dimension
// a rank-reducing slice drops), a factor of that tensor alone.
//
//===----------------------------------------------------------------------===//

#include "ir/ShardingRules.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::spmd;
using ::spmd::FactorKind;
using ::spmd::ShardingRule;
using ::spmd::TensorFactors;

/// Whether [offset, offset + size) with `stride` covers all of `dim`.
static bool coversWhole(int64_t offset, int64_t size, int64_t stride,
                        int64_t dim) {
  return offset == 0 && size == dim && stride == 1;
}

static std::optional<ShardingRule> extractSliceRule(Operation *op) {
  auto slice = llvm::cast<tensor::ExtractSliceOp>(op);
  ArrayRef<int64_t> source = slice.getSourceType().getShape();
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  ShardingRule rule;
  TensorFactors sourceDims, resultDims;
  for (auto [d, size] : llvm::enumerate(source)) {
    int64_t sliceSize = slice.getStaticSizes()[d];
    bool whole = coversWhole(slice.getStaticOffsets()[d], sliceSize,
                             slice.getStaticStrides()[d], size);
    unsigned f =
        rule.addFactor(ShapedType::isDynamic(sliceSize) ? size : sliceSize,
                       whole ? FactorKind::Parallel : FactorKind::Permutation);
    sourceDims.push_back({f});
    if (!dropped.test(d))
      resultDims.push_back({f});
  }
  rule.addTensor(std::move(sourceDims));
  rules::addScalars(rule, op->getNumOperands() - 1);
  rule.addTensor(std::move(resultDims));
  return rule;
}

static std::optional<ShardingRule> insertSliceRule(Operation *op) {
  auto insert = llvm::cast<tensor::InsertSliceOp>(op);
  ArrayRef<int64_t> dest = insert.getDestType().getShape();
  ArrayRef<int64_t> source = insert.getSourceType().getShape();
  llvm::SmallBitVector dropped = insert.getDroppedDims();
  ShardingRule rule;
  TensorFactors sourceDims, destDims;
  // A destination dimension the source covers whole is parallel; one it is
  // inserted into at an offset is a permutation factor (the insertion
  // lands on some shards only).
  unsigned s = 0;
  for (unsigned d = 0; d < dest.size(); ++d) {
    bool whole =
        !dropped.test(d) && coversWhole(insert.getStaticOffsets()[d], source[s],
                                        insert.getStaticStrides()[d], dest[d]);
    unsigned f = rule.addFactor(dest[d], whole ? FactorKind::Parallel
                                               : FactorKind::Permutation);
    destDims.push_back({f});
    if (dropped.test(d))
      continue;
    sourceDims.push_back(whole ? ::spmd::DimFactors{f}
                               : ::spmd::DimFactors{rule.addFactor(
                                     source[s], FactorKind::Permutation)});
    ++s;
  }
  rule.addTensor(std::move(sourceDims));
  rule.addTensor(destDims);
  rules::addScalars(rule, op->getNumOperands() - 2);
  rule.addTensor(std::move(destDims));
  return rule;
}

static std::optional<ShardingRule> padRule(Operation *op) {
  auto pad = llvm::cast<tensor::PadOp>(op);
  ArrayRef<int64_t> result = pad.getResultType().getShape();
  ShardingRule rule;
  TensorFactors dims;
  for (auto [d, size] : llvm::enumerate(result)) {
    bool unpadded = pad.getStaticLow()[d] == 0 && pad.getStaticHigh()[d] == 0;
    dims.push_back({rule.addFactor(size, unpadded ? FactorKind::Parallel
                                                  : FactorKind::Permutation)});
  }
  rule.addTensor(dims);
  rules::addScalars(rule, op->getNumOperands() - 1);
  rule.addTensor(std::move(dims));
  return rule;
}

static std::optional<ShardingRule> concatRule(Operation *op) {
  auto concat = llvm::cast<tensor::ConcatOp>(op);
  ArrayRef<int64_t> result = concat.getResultType().getShape();
  ShardingRule rule;
  TensorFactors dims;
  for (auto [d, size] : llvm::enumerate(result))
    dims.push_back(
        {rule.addFactor(size, d == concat.getDim() ? FactorKind::Permutation
                                                   : FactorKind::Parallel)});
  for (unsigned i = 0; i <= op->getNumOperands(); ++i)
    rule.addTensor(dims);
  return rule;
}

void mlir::spmd::registerSliceRules(ShardingRuleRegistry &registry) {
  registry.add(tensor::ExtractSliceOp::getOperationName(), extractSliceRule);
  registry.add(tensor::InsertSliceOp::getOperationName(), insertSliceRule);
  registry.add(tensor::PadOp::getOperationName(), padRule);
  registry.add(tensor::ConcatOp::getOperationName(), concatRule);
}
