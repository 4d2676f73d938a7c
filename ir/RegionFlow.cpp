//===- RegionFlow.cpp - Values carried through an op's regions ------------===//

#include "ir/RegionFlow.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;

SmallVector<SmallVector<Value>>
mlir::spmd::regionFlowClasses(RegionBranchOpInterface op) {
  SmallVector<Value> order;
  llvm::DenseMap<Value, unsigned> index;
  SmallVector<unsigned> parent;
  auto id = [&](Value value) {
    auto [it, inserted] = index.try_emplace(value, order.size());
    if (inserted) {
      order.push_back(value);
      parent.push_back(it->second);
    }
    return it->second;
  };
  auto root = [&](unsigned i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  for (RegionBranchPoint point : op.getAllRegionBranchPoints()) {
    SmallVector<RegionSuccessor> successors;
    op.getSuccessorRegions(point, successors);
    for (const RegionSuccessor &successor : successors)
      for (auto [operand, input] :
           llvm::zip(op.getSuccessorOperands(point, successor),
                     successor.getSuccessorInputs())) {
        unsigned a = root(id(operand)), b = root(id(input));
        if (a != b)
          parent[std::max(a, b)] = std::min(a, b);
      }
  }
  SmallVector<SmallVector<Value>> classes;
  llvm::DenseMap<unsigned, unsigned> classOf;
  for (auto [i, value] : llvm::enumerate(order)) {
    auto [it, inserted] = classOf.try_emplace(root(i), classes.size());
    if (inserted)
      classes.emplace_back();
    classes[it->second].push_back(value);
  }
  return classes;
}

bool mlir::spmd::hasStructuredRegions(RegionBranchOpInterface op) {
  return llvm::all_of(op->getRegions(), [](Region &region) {
    return region.empty() ||
           (region.hasOneBlock() &&
            llvm::isa<RegionBranchTerminatorOpInterface>(
                region.front().getTerminator()));
  });
}
