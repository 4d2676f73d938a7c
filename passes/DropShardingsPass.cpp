//===- DropShardingsPass.cpp - spmd-drop-shardings ------------------------===//
//
// The program for one device: shardings say where values live, not what
// they are, so without them (and without the meshes they name) the rest
// of the pipeline compiles the computation as written. What the devices
// must run together (a manual region, a collective) has no such form.
//
//===----------------------------------------------------------------------===//

#include "ir/Namespaces.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDDROPSHARDINGS
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;
using namespace mlir::spmd;

/// The attributes that place values on a mesh.
static constexpr StringLiteral kPlacementAttrs[] = {
    SpmdDialect::kShardingAttrName, SpmdDialect::kOriginsAttrName,
    SpmdDialect::kFactorSplitAttrName};

static void dropPlacements(Operation *op) {
  for (StringRef name : kPlacementAttrs)
    op->removeAttr(name);
  auto function = llvm::dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return;
  for (StringRef name : kPlacementAttrs) {
    for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
      function.removeArgAttr(i, name);
    for (unsigned i = 0, e = function.getNumResults(); i < e; ++i)
      function.removeResultAttr(i, StringAttr::get(op->getContext(), name));
  }
}

namespace {
struct DropShardingsPass
    : public mlir::spmd::impl::SpmdDropShardingsBase<DropShardingsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module->hasAttr(SpmdDialect::kPartitionedAttrName)) {
      module.emitError("the module is already partitioned: it has no form "
                       "for one device");
      return signalPassFailure();
    }
    SmallVector<ShardingConstraintOp> constraints;
    module.walk([&](Operation *op) {
      dropPlacements(op);
      if (auto constraint = llvm::dyn_cast<ShardingConstraintOp>(op))
        constraints.push_back(constraint);
    });
    for (ShardingConstraintOp constraint : constraints) {
      constraint.getResult().replaceAllUsesWith(constraint.getInput());
      constraint.erase();
    }
    for (MeshOp mesh : llvm::make_early_inc_range(module.getOps<MeshOp>())) {
      std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(mesh, module);
      if (uses && !uses->empty()) {
        Operation *user = uses->begin()->getUser();
        user->emitError() << "'" << user->getName()
                          << "' runs on the devices of @" << mesh.getSymName()
                          << " together: the program has no form for one "
                             "device";
        return signalPassFailure();
      }
      mesh.erase();
    }
  }
};
} // namespace
