//===- AddErrorScalesPass.cpp - spmd-add-error-scales ---------------------===//

#include "ir/Namespaces.h"
#include "passes/ErrorScales.h"
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

  void runOnOperation() override {
    if (failed(mlir::spmd::addErrorScales(getOperation(), halfWidth))) {
      getOperation().emitError("the program's error scales have no rule for "
                               "one of its ops");
      signalPassFailure();
    }
  }
};
} // namespace
