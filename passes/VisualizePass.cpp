//===- VisualizePass.cpp - spmd-visualize ---------------------------------===//

#include "ir/FunctionAttrs.h"
#include "ir/Namespaces.h"
#include "ir/SpmdOps.h"
#include "passes/PassOptionChecks.h"
#include "passes/Passes.h"
#include "sharding/ShardingGrid.h"
#include "support/Files.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::spmd {
#define GEN_PASS_DEF_SPMDVISUALIZE
#include "passes/Passes.h.inc"
} // namespace mlir::spmd

using namespace mlir;
using namespace mlir::spmd;

namespace {
struct VisualizePass : mlir::spmd::impl::SpmdVisualizeBase<VisualizePass> {
  using SpmdVisualizeBase::SpmdVisualizeBase;

  /// Draws one annotated value, `what` naming it.
  void draw(llvm::raw_ostream &os, SymbolTableCollection &tables,
            func::FuncOp function, const std::string &what,
            DictionaryAttr attrs, Type type) {
    auto sharding =
        attrs ? attrs.getAs<ShardingAttr>(SpmdDialect::kShardingAttrName)
              : nullptr;
    if (!sharding)
      return;
    if (auto global =
            attrs.getAs<TypeAttr>(SpmdDialect::kGlobalTypeAttrName))
      type = global.getValue();
    auto tensor = llvm::dyn_cast<RankedTensorType>(type);
    auto mesh = tables.lookupNearestSymbolFrom<MeshOp>(function,
                                                       sharding.getMesh());
    if (!tensor || !mesh)
      return;
    os << "@" << function.getSymName() << " " << what << " " << tensor << " "
       << sharding << "\n";
    llvm::Expected<ShardLayout> layout =
        ShardLayout::get(sharding.toTensorSharding(), mesh.getMesh().toMesh(),
                         tensor.getShape());
    if (!layout) {
      os << "  (" << llvm::toString(layout.takeError()) << ")\n";
      return;
    }
    llvm::Expected<std::string> grid = drawShardingGrid(*layout);
    if (!grid) {
      os << "  (" << llvm::toString(grid.takeError()) << ")\n";
      return;
    }
    os << *grid;
  }

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    CheckedOption checks[] = {
        {"output", nonEmpty("a file name, or '-' for standard error")}};
    return parseCheckedOptions(
        "spmd-visualize", options, checks, errorHandler, [&](auto handler) {
          return Pass::initializeOptions(options, handler);
        });
  }

  void runOnOperation() override {
    // Drawn whole first, then written through the checked writer: a file
    // that cannot take it (/dev/full) is an error, never a crash.
    std::string grids;
    llvm::raw_string_ostream os(grids);
    SymbolTableCollection tables;
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      for (unsigned i = 0; i < function.getNumArguments(); ++i)
        draw(os, tables, function, "argument " + std::to_string(i),
             function.getArgAttrDict(i), function.getArgumentTypes()[i]);
      for (unsigned i = 0; i < function.getNumResults(); ++i)
        draw(os, tables, function, "result " + std::to_string(i),
             function.getResultAttrDict(i), function.getResultTypes()[i]);
    }
    markAllAnalysesPreserved();
    if (output == "-") {
      llvm::errs() << grids;
      return;
    }
    if (llvm::Error error = writeFile(
            output, "grids", [&](llvm::raw_ostream &file) { file << grids; })) {
      emitError(getOperation().getLoc()) << llvm::toString(std::move(error));
      signalPassFailure();
    }
  }
};
} // namespace
