//===- LowerTosaPass.cpp - spmd-lower-tosa --------------------------------===//
//
// TOSA ops run as what upstream lowers them to. The conversions walk every
// op of every function, a quarter of the executor's compile time on a
// large linalg program, so they run only when the module holds TOSA ops.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDLOWERTOSA
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;

namespace {
struct LowerTosaPass
    : public mlir::spmd::impl::SpmdLowerTosaBase<LowerTosaPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool holdsTosa =
        module
            .walk([](Operation *op) {
              return llvm::isa_and_nonnull<tosa::TosaDialect>(op->getDialect())
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            })
            .wasInterrupted();
    if (!holdsTosa)
      return;
    OpPassManager lowering(ModuleOp::getOperationName());
    OpPassManager &functions = lowering.nest<func::FuncOp>();
    functions.addPass(tosa::createTosaToLinalgNamed());
    functions.addPass(tosa::createTosaToLinalg());
    functions.addPass(createTosaToTensorPass());
    functions.addPass(createTosaToArithPass());
    if (failed(runPipeline(lowering, module)))
      signalPassFailure();
  }
};
} // namespace
