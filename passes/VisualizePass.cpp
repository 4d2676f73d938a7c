//===- VisualizePass.cpp - spmd-visualize ---------------------------------===//

#include "ir/FunctionAttrs.h"
#include "ir/SpmdOps.h"
#include "passes/Passes.h"
#include "sharding/ShardingGrid.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"
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
    llvm::Expected<::spmd::ShardLayout> layout = ::spmd::ShardLayout::get(
        sharding.toTensorSharding(), mesh.getMesh().toMesh(),
        tensor.getShape());
    if (!layout) {
      os << "  (" << llvm::toString(layout.takeError()) << ")\n";
      return;
    }
    llvm::Expected<std::string> grid = ::spmd::drawShardingGrid(*layout);
    if (!grid) {
      os << "  (" << llvm::toString(grid.takeError()) << ")\n";
      return;
    }
    os << *grid;
  }

  void runOnOperation() override {
    std::error_code ec;
    std::unique_ptr<llvm::raw_fd_ostream> file;
    if (output != "-") {
      file = std::make_unique<llvm::raw_fd_ostream>(output, ec,
                                                    llvm::sys::fs::OF_Text);
      if (ec) {
        emitError(getOperation().getLoc())
            << "cannot write the grids to '" << output
            << "': " << ec.message();
        return signalPassFailure();
      }
    }
    llvm::raw_ostream &os = file ? *file : llvm::errs();
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
  }
};
} // namespace
