//===- ShardingRule.cpp - Factor-based sharding rules ---------------------===//

#include "sharding/ShardingRule.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace spmd;

llvm::StringRef spmd::stringifyFactorKind(FactorKind kind) {
  switch (kind) {
  case FactorKind::Parallel:
    return "parallel";
  case FactorKind::Reduction:
    return "reduction";
  case FactorKind::NeedReplication:
    return "need_replication";
  case FactorKind::Permutation:
    return "permutation";
  }
  llvm_unreachable("unknown factor kind");
}

unsigned ShardingRule::addFactor(int64_t size, FactorKind kind) {
  factorSizes.push_back(size);
  factorKinds.push_back(kind);
  return factorSizes.size() - 1;
}

unsigned ShardingRule::hash() const {
  llvm::hash_code code =
      llvm::hash_combine_range(factorSizes.begin(), factorSizes.end());
  for (FactorKind kind : factorKinds)
    code = llvm::hash_combine(code, kind);
  for (const TensorFactors &dims : tensors) {
    code = llvm::hash_combine(code, dims.size());
    for (const DimFactors &factors : dims)
      code = llvm::hash_combine(
          code, llvm::hash_combine_range(factors.begin(), factors.end()));
  }
  return code;
}

ShardingRule ShardingRule::identity(llvm::ArrayRef<int64_t> shape,
                                    unsigned numTensors) {
  ShardingRule rule;
  TensorFactors dims;
  for (int64_t size : shape)
    dims.push_back({rule.addFactor(size, FactorKind::Parallel)});
  for (unsigned t = 0; t < numTensors; ++t)
    rule.addTensor(dims);
  return rule;
}

ShardingRule ShardingRule::reshape(llvm::ArrayRef<int64_t> source,
                                   llvm::ArrayRef<int64_t> result) {
  ShardingRule rule;
  TensorFactors src(source.size()), dst(result.size());
  // A tensor of no elements: its dimensions match none of the other's.
  if (llvm::is_contained(source, 0) || llvm::is_contained(result, 0)) {
    for (auto [sizes, dims] :
         {std::pair(source, &src), std::pair(result, &dst)})
      for (auto [d, size] : llvm::enumerate(sizes))
        if (size != 1)
          (*dims)[d].push_back(
              rule.addFactor(size, FactorKind::NeedReplication));
    rule.addTensor(std::move(src));
    rule.addTensor(std::move(dst));
    return rule;
  }
  size_t i = 0, j = 0;
  // What is left of the current source and result dimensions.
  int64_t restSrc = i < source.size() ? source[i] : 1;
  int64_t restDst = j < result.size() ? result[j] : 1;
  while (i < source.size() && j < result.size()) {
    // Size-1 dimensions take no factor.
    if (restSrc == 1) {
      if (++i < source.size())
        restSrc = source[i];
      continue;
    }
    if (restDst == 1) {
      if (++j < result.size())
        restDst = result[j];
      continue;
    }
    int64_t common = std::min(restSrc, restDst);
    if (restSrc % common != 0 || restDst % common != 0) {
      // The dimensions interleave in ways no common factor describes:
      // replicate what is left of both.
      unsigned f = rule.addFactor(restSrc, FactorKind::NeedReplication);
      src[i].push_back(f);
      dst[j].push_back(rule.addFactor(restDst, FactorKind::NeedReplication));
      for (++i; i < source.size(); ++i)
        if (source[i] != 1)
          src[i].push_back(
              rule.addFactor(source[i], FactorKind::NeedReplication));
      for (++j; j < result.size(); ++j)
        if (result[j] != 1)
          dst[j].push_back(
              rule.addFactor(result[j], FactorKind::NeedReplication));
      break;
    }
    unsigned f = rule.addFactor(common, FactorKind::Parallel);
    src[i].push_back(f);
    dst[j].push_back(f);
    restSrc /= common;
    restDst /= common;
  }
  rule.addTensor(std::move(src));
  rule.addTensor(std::move(dst));
  return rule;
}

std::string ShardingRule::factorName(unsigned f) {
  std::string n(1, static_cast<char>('i' + f % 18));
  if (f >= 18)
    n += std::to_string(f / 18);
  return n;
}

std::string ShardingRule::str(unsigned numOperands) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto name = factorName;
  auto printTensors = [&](unsigned begin, unsigned end) {
    os << '(';
    for (unsigned t = begin; t < end; ++t) {
      if (t != begin)
        os << ", ";
      os << '[';
      llvm::interleaveComma(tensors[t], os, [&](const DimFactors &dim) {
        if (dim.empty())
          os << '1';
        llvm::interleave(
            dim, os, [&](unsigned f) { os << name(f); }, ",");
      });
      os << ']';
    }
    os << ')';
  };
  printTensors(0, std::min<unsigned>(numOperands, tensors.size()));
  os << " -> ";
  printTensors(std::min<unsigned>(numOperands, tensors.size()), tensors.size());
  os << " {";
  for (unsigned f = 0; f < numFactors(); ++f)
    os << (f ? ", " : "") << name(f) << '=' << factorSizes[f];
  os << '}';
  for (FactorKind kind : {FactorKind::Reduction, FactorKind::NeedReplication,
                          FactorKind::Permutation}) {
    llvm::SmallVector<unsigned> ofKind;
    for (unsigned f = 0; f < numFactors(); ++f)
      if (factorKinds[f] == kind)
        ofKind.push_back(f);
    if (ofKind.empty())
      continue;
    os << ' ' << stringifyFactorKind(kind) << "={";
    llvm::interleaveComma(ofKind, os, [&](unsigned f) { os << name(f); });
    os << '}';
  }
  return text;
}

/// Whether every factor of a dimension has a size and axes.
[[maybe_unused]] static bool
namesFactorsOf(llvm::ArrayRef<unsigned> factors,
               llvm::ArrayRef<int64_t> factorSizes,
               llvm::ArrayRef<AxisList> factorAxes) {
  return factorSizes.size() == factorAxes.size() &&
         llvm::all_of(factors,
                      [&](unsigned f) { return f < factorSizes.size(); });
}

void spmd::projectDim(llvm::ArrayRef<AxisIndex> axes,
                      llvm::ArrayRef<unsigned> factors,
                      llvm::ArrayRef<int64_t> factorSizes,
                      const DeviceMesh &mesh,
                      llvm::SmallVectorImpl<AxisList> &factorAxes) {
  assert(namesFactorsOf(factors, factorSizes, factorAxes) &&
         "a dimension made of the rule's factors");
  if (factors.size() == 1) {
    factorAxes[factors[0]].append(axes.begin(), axes.end());
    return;
  }
  size_t i = 0;
  int64_t product = 1;
  for (AxisIndex axis : axes) {
    while (i < factors.size() && product == factorSizes[factors[i]]) {
      ++i;
      product = 1;
    }
    if (i == factors.size())
      return;
    int64_t size = mesh.axisSize(axis);
    if (factorSizes[factors[i]] % (product * size) != 0)
      return;
    factorAxes[factors[i]].push_back(axis);
    product *= size;
  }
}

AxisList spmd::composeDim(llvm::ArrayRef<unsigned> factors,
                          llvm::ArrayRef<AxisList> factorAxes,
                          llvm::ArrayRef<int64_t> factorSizes,
                          const DeviceMesh &mesh) {
  assert(namesFactorsOf(factors, factorSizes, factorAxes) &&
         "a dimension made of the rule's factors");
  if (factors.size() == 1)
    return factorAxes[factors[0]];
  AxisList axes;
  for (unsigned f : factors) {
    int64_t product = 1;
    for (AxisIndex axis : factorAxes[f]) {
      int64_t size = mesh.axisSize(axis);
      if (factorSizes[f] % (product * size) != 0)
        return axes;
      axes.push_back(axis);
      product *= size;
    }
    if (product != factorSizes[f])
      return axes; // Minor factors cannot be sharded past a partial one.
  }
  return axes;
}
