//===- RegionFlow.cpp - Values carried through an op's regions ------------===//

#include "ir/RegionFlow.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/PointerUnion.h"

using namespace mlir;

SmallVector<mlir::spmd::CarriedValue>
mlir::spmd::regionFlowClasses(RegionBranchOpInterface op) {
  // Union-find over operands and inputs, numbered as first seen.
  using Node = llvm::PointerUnion<OpOperand *, Value>;
  SmallVector<Node> order;
  llvm::DenseMap<void *, unsigned> index;
  SmallVector<unsigned> parent;
  auto id = [&](Node node) {
    auto [it, inserted] = index.try_emplace(node.getOpaqueValue(), order.size());
    if (inserted) {
      order.push_back(node);
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
    for (const RegionSuccessor &successor : successors) {
      OperandRange operands = op.getSuccessorOperands(point, successor);
      ValueRange inputs = successor.getSuccessorInputs();
      assert(operands.size() == inputs.size() &&
             "a successor takes as many values as are passed to it");
      for (auto [i, input] : llvm::enumerate(inputs)) {
        OpOperand &operand = operands.getBase()[i];
        unsigned a = root(id(&operand)), b = root(id(Node(input)));
        if (a != b)
          parent[std::max(a, b)] = std::min(a, b);
      }
    }
  }
  SmallVector<CarriedValue> classes;
  llvm::DenseMap<unsigned, unsigned> classOf;
  for (auto [i, node] : llvm::enumerate(order)) {
    auto [it, inserted] = classOf.try_emplace(root(i), classes.size());
    if (inserted)
      classes.emplace_back();
    CarriedValue &carried = classes[it->second];
    if (auto *operand = llvm::dyn_cast<OpOperand *>(node))
      carried.operands.push_back(operand);
    else
      carried.inputs.push_back(llvm::cast<Value>(node));
  }
  return classes;
}

bool mlir::spmd::hasStructuredRegions(RegionBranchOpInterface op) {
  return llvm::all_of(op->getRegions(), [](Region &region) {
    if (region.empty())
      return true;
    if (!region.hasOneBlock())
      return false;
    Operation *terminator = region.front().getTerminator();
    return llvm::isa<RegionBranchTerminatorOpInterface>(terminator) &&
           terminator->getNumRegions() == 0;
  });
}
