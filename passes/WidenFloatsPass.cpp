//===- WidenFloatsPass.cpp - A program's floats computed in f64 -----------===//
//
// The reference --check compares against: the same unpartitioned program
// with every f16, bf16 and f32 value, constant and tensor made f64, so the
// check can tell how far the program's own precision is from the exact
// result (SpmdRun's tolerance scales with that distance).
//
//===----------------------------------------------------------------------===//

#include "ir/Namespaces.h"
#include "passes/Passes.h"
#include "passes/WidenFloats.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDWIDENFLOATS
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;

/// `type` with narrow floats (also as tensor elements) made f64.
static Type widen(Type type) {
  Builder b(type.getContext());
  if (llvm::isa<Float16Type, BFloat16Type, Float32Type>(type))
    return b.getF64Type();
  if (auto tensor = llvm::dyn_cast<RankedTensorType>(type))
    return tensor.clone(widen(tensor.getElementType()));
  if (auto function = llvm::dyn_cast<FunctionType>(type)) {
    SmallVector<Type> inputs, results;
    for (Type t : function.getInputs())
      inputs.push_back(widen(t));
    for (Type t : function.getResults())
      results.push_back(widen(t));
    return b.getFunctionType(inputs, results);
  }
  return type;
}

/// `attr` (a float or dense float constant) in f64; null if not needed.
static Attribute widen(Attribute attr) {
  if (auto f = llvm::dyn_cast<FloatAttr>(attr)) {
    if (f.getType().isF64())
      return {};
    return FloatAttr::get(Float64Type::get(attr.getContext()),
                          f.getValueAsDouble());
  }
  if (auto dense = llvm::dyn_cast<DenseFPElementsAttr>(attr)) {
    auto type = llvm::cast<ShapedType>(widen(dense.getType()));
    if (type == dense.getType())
      return {};
    SmallVector<double> values;
    values.reserve(dense.getNumElements());
    // f32 read directly: through APFloat a model's weights take seconds.
    if (dense.getElementType().isF32())
      llvm::append_range(values, dense.getValues<float>());
    else
      for (llvm::APFloat v : dense.getValues<llvm::APFloat>())
        values.push_back(v.convertToDouble());
    return DenseElementsAttr::get(type, llvm::ArrayRef<double>(values));
  }
  if (auto typeAttr = llvm::dyn_cast<TypeAttr>(attr)) {
    Type wide = widen(typeAttr.getValue());
    return wide == typeAttr.getValue() ? Attribute() : TypeAttr::get(wide);
  }
  return {};
}

LogicalResult mlir::spmd::widenFloats(ModuleOp module) {
  SmallVector<Operation *> casts;
  module.walk([&](Operation *op) {
    for (Value result : op->getResults())
      result.setType(widen(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(widen(arg.getType()));
    for (NamedAttribute attr : op->getAttrs())
      if (Attribute wide = widen(attr.getValue()))
        op->setAttr(attr.getName(), wide);
    if (auto function = llvm::dyn_cast<func::FuncOp>(op))
      function.setFunctionType(
          llvm::cast<FunctionType>(widen(function.getFunctionType())));
    if (llvm::isa<arith::ExtFOp, arith::TruncFOp>(op))
      casts.push_back(op);
  });
  // Casts between floats that are all f64 now are no casts.
  for (Operation *cast : casts) {
    if (cast->getOperand(0).getType() != cast->getResult(0).getType())
      continue;
    cast->getResult(0).replaceAllUsesWith(cast->getOperand(0));
    cast->erase();
  }
  // Ops that take narrow floats only (a user's op) leave the program
  // invalid: the caller keeps the narrow reference, and says nothing.
  ScopedDiagnosticHandler quiet(module.getContext(),
                                [](Diagnostic &) { return success(); });
  return verify(module);
}

namespace {
struct WidenFloatsPass
    : mlir::spmd::impl::SpmdWidenFloatsBase<WidenFloatsPass> {
  void runOnOperation() override {
    if (failed(mlir::spmd::widenFloats(getOperation()))) {
      getOperation().emitError("the program cannot compute in f64: it does "
                               "not verify once widened");
      signalPassFailure();
    }
  }
};
} // namespace
