//===- RemadePerDevice.cpp - Tensors every device makes itself ------------===//

#include "ir/RemadePerDevice.h"

#include "ir/Namespaces.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

#include <optional>

using namespace mlir;
using namespace mlir::spmd;

namespace {
/// What the op making a value says of it: remade or not, or remade when the
/// tensor it fills is. Of the ops that qualify only linalg.fill reads a
/// tensor, so the walk is a chain, not a tree.
struct Step {
  std::optional<bool> remade;
  Value filled;
};
} // namespace

static bool isStaticTensor(Value value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape();
}

static Step step(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || !isStaticTensor(value))
    return {false, {}};
  // Static types leave tensor.empty no operands and tensor.splat only its
  // scalar.
  if (llvm::isa<tensor::EmptyOp, tensor::SplatOp>(def) ||
      matchPattern(value, m_Constant<SplatElementsAttr>(nullptr)))
    return {true, {}};
  if (auto fill = llvm::dyn_cast<linalg::FillOp>(def))
    return {std::nullopt, fill.getOutputs()[0]};
  return {false, {}};
}

bool mlir::spmd::isRemadePerDevice(Value value) {
  while (true) {
    Step next = step(value);
    if (next.remade)
      return *next.remade;
    value = next.filled;
  }
}

bool RemadePerDeviceCache::isRemade(Value value) {
  SmallVector<Value> chain;
  std::optional<bool> remade;
  while (!remade) {
    if (auto it = known.find(value); it != known.end()) {
      remade = it->second;
      break;
    }
    chain.push_back(value);
    Step next = step(value);
    remade = next.remade;
    value = next.filled;
  }
  for (Value walked : chain)
    known[walked] = *remade;
  return *remade;
}

bool RemadePerDeviceCache::isFreeInAnyLayout(Value value) {
  if (isRemade(value))
    return true;
  Operation *def = value.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>() && isStaticTensor(value);
}
