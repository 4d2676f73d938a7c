//===- AddErrorScalesPass.cpp - spmd-add-error-scales ---------------------===//

#include "ir/Namespaces.h"
#include "passes/ErrorScales.h"
#include "passes/PassOptionChecks.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDADDERRORSCALES
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;

namespace {
struct AddErrorScalesPass
    : mlir::spmd::impl::SpmdAddErrorScalesBase<AddErrorScalesPass> {
  using SpmdAddErrorScalesBase::SpmdAddErrorScalesBase;

  // An eps: of a float type, so at most 1 (NaN or a negative width gave
  // NaN and negative scales).
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    mlir::spmd::CheckedOption checks[] = {
        {"half-width", mlir::spmd::numberIn(0, 1)}};
    return mlir::spmd::parseCheckedOptions(
        "spmd-add-error-scales", options, checks, errorHandler,
        [&](auto handler) {
          return Pass::initializeOptions(options, handler);
        });
  }

  void runOnOperation() override {
    if (failed(mlir::spmd::addErrorScales(getOperation(), halfWidth, entry)))
      signalPassFailure();
  }
};
} // namespace
